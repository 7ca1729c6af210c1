/* The run init of a phased run in the zygote sandbox, in C (see _zygote_main.py: start_native_job).

   The zygote starts this binary with posix_spawn for each phased run (a build, then a run: every
   compiled or interpreted language's case run). It does what the zygote's Python init does for the
   same job, so the verdicts rest on the same guarantees, for about a fifth of the cost: a fork of a
   tiny static process instead of two forks of a Python interpreter, and no interpreter in the run's
   init at all.

     C (this process, as spawned):  unshare a new user, mount, pid and ipc namespace; map our own
       uid and gid; fork G; tell the zygote G's pid on the pid pipe; exit. (The zygote is G's
       subreaper, so G becomes its child, as with the Python init.)
     G (pid 1 of the new pid namespace, not dumpable):  make the mounts private; a fresh size-capped
       tmpfs on /sandbox, /tmp and /dev/shm; a fresh /proc; write the run's files; drop every
       capability (no new privileges); then for each phase in turn: fork, and in the child set the
       phase's descriptors (stdin or /dev/null, its output, the channel on fd 3 only if asked, nothing
       else open), a new session, the phase's rlimits, no capabilities, execve. G waits for the phase
       against its wall deadline (a pidfd), kills it at the deadline, then kills and reaps every other
       process in the namespace before the next phase. G alone holds the status fd and writes one line a
       phase, `phase NAME STATUS CPU WALL TIMED_OUT`, as the Python init does; it stops after the
       first phase that fails.

   argv: run-init STDIN STDOUT STDERR CHANNEL STATUS SPEC PIDPIPE (descriptor numbers). SPEC is a memfd
   holding NUL-terminated fields (see the zygote's native_spec), then the files blob: for each file a
   little-endian u32 name length, u64 data length, the name, the data.

   Standard C and Linux system calls only; built once per machine by the host (cc -O2 -static). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#define MAGIC "ASSAY-RUN-INIT-1"
#define FD_BASE 100 /* where G keeps the job's descriptors, clear of 0-3 */
#define MAX_PHASES 16
#define MAX_ARGS 4096
#define NLIMITS 6

enum { J_STDIN, J_STDOUT, J_STDERR, J_CHANNEL, J_STATUS, J_SPEC, J_PIDPIPE, J_COUNT };

struct phase {
    const char *name;
    long long wall_ms;
    int channel, stdin_, output; /* output: 0 stdout, 1 merged (both to stdout), 2 stderr (both to stderr) */
    long long limits[NLIMITS][3]; /* resource, soft, hard */
    char **argv;
};

static int fds[J_COUNT];
static const char *spec_at, *spec_end;

static void say(int fd, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) {
        ssize_t ignored = write(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
        (void)ignored;
    }
}

static void fail(const char *stage, const char *what) {
    say(fds[J_STDERR], "sandbox: %s failed: %s: %s\n", stage, what, strerror(errno));
    _exit(125);
}

static const char *field(void) {
    const char *start = spec_at;
    const char *nul = memchr(spec_at, 0, (size_t)(spec_end - spec_at));
    if (!nul) {
        errno = EINVAL;
        fail("run setup", "the job's spec is cut short");
    }
    spec_at = nul + 1;
    return start;
}

static long long number(void) {
    const char *text = field();
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno || end == text || *end) {
        errno = EINVAL;
        fail("run setup", "a number in the job's spec");
    }
    return value;
}

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) fail("namespace setup", path);
    close(fd);
}

static void drop_capabilities(void) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) != 0) fail("run setup", "capset");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("run setup", "no_new_privs");
}

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void make_dirs(char *path) { /* the parents of a file, as os.makedirs(dirname, exist_ok=True) */
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) fail("run setup", path);
        *slash = '/';
    }
}

static void write_files(const char *blob, const char *end) {
    while (blob < end) {
        uint32_t name_len;
        uint64_t data_len;
        if (end - blob < 12) break;
        memcpy(&name_len, blob, 4);
        memcpy(&data_len, blob + 4, 8);
        blob += 12;
        if ((uint64_t)(end - blob) < name_len || (uint64_t)(end - blob) - name_len < data_len) {
            errno = EINVAL;
            fail("run setup", "the files blob is cut short");
        }
        char path[4096];
        if (name_len + 10 >= sizeof path) {
            errno = ENAMETOOLONG;
            fail("run setup", "a file name");
        }
        memcpy(path, "/sandbox/", 9);
        memcpy(path + 9, blob, name_len);
        path[9 + name_len] = 0;
        blob += name_len;
        make_dirs(path);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0) fail("run setup", path);
        for (uint64_t done = 0; done < data_len;) {
            ssize_t n = write(fd, blob + done, data_len - done);
            if (n <= 0) fail("run setup", path);
            done += (uint64_t)n;
        }
        close(fd);
        blob += data_len;
    }
}

static void kill_all_but_me(void) { /* as pid 1: kill every other process in the namespace, reap them all */
    kill(-1, SIGKILL);
    while (wait4(-1, NULL, 0, NULL) > 0 || errno == EINTR) {
    }
}

static void __attribute__((noreturn)) run_phase(const struct phase *p, char **env) {
    int in = fds[J_STDIN];
    if (!p->stdin_) in = open("/dev/null", O_RDONLY);
    int out = p->output == 2 ? fds[J_STDERR] : fds[J_STDOUT];
    int err = p->output == 1 ? fds[J_STDOUT] : fds[J_STDERR];
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
    if (p->channel) {
        if (dup2(fds[J_CHANNEL], 3) < 0) _exit(127);
        syscall(SYS_close_range, 4U, ~0U, 0U);
    } else {
        syscall(SYS_close_range, 3U, ~0U, 0U); /* a phase without the channel has nothing open on fd 3 */
    }
    setsid();
    for (int i = 0; i < NLIMITS; i++) {
        struct rlimit limit = {(rlim_t)p->limits[i][1], (rlim_t)p->limits[i][2]};
        if (setrlimit((int)p->limits[i][0], &limit) != 0) {
            say(2, "sandbox: cannot set a limit of %s: %s\n", p->argv[0], strerror(errno));
            _exit(127);
        }
    }
    /* G dropped every capability and set no_new_privs before forking: the child has none to drop. */
    execve(p->argv[0], p->argv, env);
    say(2, "sandbox: cannot run %s: %s\n", p->argv[0], strerror(errno));
    _exit(127);
}

static void __attribute__((noreturn)) init(struct phase *phases, int nphases, char **env, long long disk, const char *blob, const char *blob_end) {
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* the run, same uid, cannot ptrace us or take our fds (pidfd_getfd) */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail("run setup", "make mounts private");
    char opts[64];
    const char *where[] = {"/sandbox", "/tmp", "/dev/shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(opts, sizeof opts, "mode=%s,size=%lld", i == 0 ? "0755" : "1777", disk);
        if (mount("tmpfs", where[i], "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) fail("run setup", where[i]);
    }
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV, NULL) != 0) fail("run setup", "mount /proc");
    write_files(blob, blob_end);
    if (chdir("/sandbox") != 0) fail("run setup", "chdir /sandbox");
    drop_capabilities(); /* G needs none from here on: it starts, waits, kills and reports */
    static char results[MAX_PHASES * 160];
    size_t used = 0;
    for (int i = 0; i < nphases; i++) {
        const struct phase *p = &phases[i];
        double start = monotonic();
        pid_t pid = fork();
        if (pid < 0) fail("run", "fork");
        if (pid == 0) run_phase(p, env);
        int status = 0, timed_out = 0;
        struct rusage usage;
        memset(&usage, 0, sizeof usage);
        int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0) fail("run", "pidfd_open");
        struct pollfd poller = {pidfd, POLLIN, 0};
        double deadline = start + (double)p->wall_ms / 1000.0;
        for (;;) {
            long long left = (long long)((deadline - monotonic()) * 1000.0);
            if (left < 0) left = 0;
            int ready = poll(&poller, 1, left > 0x7fffffff ? 0x7fffffff : (int)left);
            if (ready > 0) break;
            if (ready == 0 && monotonic() >= deadline) {
                timed_out = 1;
                break;
            }
            if (ready < 0 && errno != EINTR) fail("run", "poll");
        }
        close(pidfd);
        if (timed_out) kill(pid, SIGKILL);
        while (wait4(pid, &status, 0, &usage) < 0) {
            if (errno != EINTR) fail("run", "wait4");
        }
        kill_all_but_me();
        double cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
        int n = snprintf(results + used, sizeof results - used, "phase %s %d %.6f %.6f %d\n", p->name, status, cpu, monotonic() - start, timed_out);
        if (n > 0 && (size_t)n < sizeof results - used) used += (size_t)n;
        if (timed_out || status != 0) break;
    }
    for (int i = J_STDIN; i <= J_CHANNEL; i++) close(fds[i]);
    for (size_t done = 0; done < used;) {
        ssize_t n = write(fds[J_STATUS], results + done, used - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    _exit(0); /* as pid 1: the kernel now kills everything left in the namespace */
}

int main(int argc, char **argv) {
    if (argc != 1 + J_COUNT) return 2; /* not started by the zygote: nothing to report to */
    /* Ours at FD_BASE.., close-on-exec: nothing else of the zygote's stays open. The numbers given may
       lie anywhere, FD_BASE's range included (the zygote inherits its socket at the number the host's
       process had, past 100 in a busy one), so each goes first above all of them, then into place. */
    int given[J_COUNT], high[J_COUNT], top = FD_BASE + J_COUNT;
    for (int i = 0; i < J_COUNT; i++) {
        given[i] = atoi(argv[1 + i]);
        if (given[i] >= top) top = given[i] + 1;
    }
    for (int i = 0; i < J_COUNT; i++) {
        high[i] = fcntl(given[i], F_DUPFD_CLOEXEC, top);
        if (high[i] < 0) {
            say(given[J_STDERR], "sandbox: run setup failed: descriptor %d: %s\n", given[i], strerror(errno));
            return 3;
        }
    }
    for (int i = 0; i < J_COUNT; i++) { /* every high[i] is above FD_BASE + J_COUNT: none is overwritten here */
        fds[i] = dup3(high[i], FD_BASE + i, O_CLOEXEC);
        if (fds[i] != FD_BASE + i) {
            say(given[J_STDERR], "sandbox: run setup failed: descriptor %d to %d: %s\n", given[i], FD_BASE + i, strerror(errno));
            return 3;
        }
    }
    syscall(SYS_close_range, 0U, (unsigned)FD_BASE - 1, 0U);
    syscall(SYS_close_range, (unsigned)(FD_BASE + J_COUNT), ~0U, 0U);
    struct stat st;
    if (fstat(fds[J_SPEC], &st) != 0) fail("run setup", "the job's spec");
    const char *spec = mmap(NULL, (size_t)st.st_size + 1, PROT_READ, MAP_PRIVATE, fds[J_SPEC], 0);
    if (spec == MAP_FAILED) fail("run setup", "map the job's spec");
    spec_at = spec;
    spec_end = spec + st.st_size;
    if (strcmp(field(), MAGIC) != 0) {
        errno = EINVAL;
        fail("run setup", "the job's spec is not " MAGIC);
    }
    long long uid = number(), gid = number(), disk = number();
    int nphases = (int)number();
    if (nphases < 1 || nphases > MAX_PHASES) {
        errno = EINVAL;
        fail("run setup", "the number of phases");
    }
    static struct phase phases[MAX_PHASES];
    for (int i = 0; i < nphases; i++) {
        struct phase *p = &phases[i];
        p->name = field();
        p->wall_ms = number();
        p->channel = (int)number();
        p->stdin_ = (int)number();
        p->output = (int)number();
        for (int k = 0; k < NLIMITS; k++)
            for (int j = 0; j < 3; j++) p->limits[k][j] = number();
        long long nargs = number();
        if (nargs < 1 || nargs > MAX_ARGS) {
            errno = EINVAL;
            fail("run setup", "a phase's argv");
        }
        p->argv = calloc((size_t)nargs + 1, sizeof(char *));
        if (!p->argv) fail("run setup", "calloc");
        for (long long j = 0; j < nargs; j++) p->argv[j] = (char *)field();
    }
    long long nenv = number();
    if (nenv < 0 || nenv > MAX_ARGS) {
        errno = EINVAL;
        fail("run setup", "the environment");
    }
    char **env = calloc((size_t)nenv + 1, sizeof(char *));
    if (!env) fail("run setup", "calloc");
    for (long long j = 0; j < nenv; j++) env[j] = (char *)field();
    long long blob_size = number();
    if (blob_size < 0 || blob_size > spec_end - spec_at) {
        errno = EINVAL;
        fail("run setup", "the files blob's size");
    }
    const char *blob = spec_at;

    /* C: the namespaces, then G. */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); /* else /proc/self/uid_map and gid_map belong to root, not to us */
    /* No new uts namespace: without capabilities in the outer one the run cannot rename the host anyway. */
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC) != 0) fail("namespace setup", "unshare");
    char map[64];
    write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%lld %lld 1", uid, uid);
    write_file("/proc/self/uid_map", map);
    snprintf(map, sizeof map, "%lld %lld 1", gid, gid);
    write_file("/proc/self/gid_map", map);
    pid_t g = fork();
    if (g < 0) fail("namespace setup", "fork");
    if (g == 0) {
        close(fds[J_PIDPIPE]);
        close(fds[J_SPEC]); /* mapped already */
        init(phases, nphases, env, disk, blob, blob + blob_size);
    }
    say(fds[J_PIDPIPE], "%d\n", (int)g);
    return 0;
}
