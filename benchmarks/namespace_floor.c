/* The kernel's floor for one sandboxed run's isolation: what any launcher pays a run, however cheap its own code.

     cc -O2 -o /tmp/namespace_floor benchmarks/namespace_floor.c && /tmp/namespace_floor 4 1000

   Each of N iterations clones a child into new user, mount, pid and ipc namespaces (as the run init's
   unshare does), which maps its uid and then, by the level given, adds: 1 private mounts, 2 two size-capped
   tmpfs, 3 a fresh /proc, 4 a fork and exit of one process inside (a phase). The parent waits for each, so
   the namespaces' teardown is counted too. Prints wall and CPU (self and children, getrusage) a run. Runs as
   root, mounting over /mnt and /media inside the child's own mount namespace (the host's are untouched).
   Standard C and Linux system calls only. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int level;
static char stack[1 << 16];

static void put(const char *path, const char *text) {
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        perror(path);
        _exit(9);
    }
    close(fd);
}

static int child(void *arg) {
    char map[64];
    snprintf(map, sizeof map, "%ld %ld 1", (long)arg, (long)arg);
    put("/proc/self/setgroups", "deny");
    put("/proc/self/uid_map", map);
    put("/proc/self/gid_map", map);
    if (level >= 1 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) _exit(10);
    if (level >= 2 && (mount("tmpfs", "/mnt", "tmpfs", 0, "size=1m") != 0 || mount("tmpfs", "/media", "tmpfs", 0, "size=1m") != 0)) _exit(11);
    if (level >= 3 && mount("proc", "/proc", "proc", 0, NULL) != 0) _exit(12);
    if (level >= 4) {
        pid_t pid = fork();
        if (pid == 0) _exit(0);
        waitpid(pid, NULL, 0);
    }
    _exit(0);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s LEVEL(0-4) RUNS\n", argv[0]);
        return 2;
    }
    level = atoi(argv[1]);
    int runs = atoi(argv[2]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < runs; i++) {
        pid_t pid = clone(child, stack + sizeof stack, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | SIGCHLD, (void *)(long)getuid());
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0) {
            fprintf(stderr, "run %d failed (status %d)\n", i, pid < 0 ? -1 : status);
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    double cpu = 0;
    for (int k = 0; k < 2; k++) {
        struct rusage *u = k ? &children : &self;
        cpu += (double)(u->ru_utime.tv_sec + u->ru_stime.tv_sec) + (double)(u->ru_utime.tv_usec + u->ru_stime.tv_usec) / 1e6;
    }
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("level %d: %.3f ms wall, %.3f ms CPU a run (%d runs)\n", level, wall * 1e3 / runs, cpu * 1e3 / runs, runs);
    return 0;
}
