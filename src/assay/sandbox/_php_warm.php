<?php
/* The warm PHP launcher (its client in the zygote: _zygote_php.py). PHP 8 with FFI, nothing else.

   PHP spends about 10 ms of its 12 ms start registering its built-in functions and relocating its
   extensions; a fork of a PHP that has already started costs well under one. So for a run that is one
   phase of `php FILE.php` the zygote hands the job to this process, started once per zygote with the
   runs' environment, instead of to the C run init. It does for that job what the C run init does
   (_run_init.c), step for step, and the run gets the same guarantees:

     this process (outside the run, never runs a sample's code): read a job (the C run init's spec,
       and the job's five descriptors by SCM_RIGHTS) from the zygote; clone(2) G straight into a new
       user, mount, pid and ipc namespace; tell the zygote G's pid; reap G; wait for the next job.
     G (pid 1 of the new pid namespace, not dumpable): map our uid and gid; make the mounts private; a
       fresh size-capped tmpfs on /sandbox, /tmp and /dev/shm; a fresh /proc; write the run's files;
       drop every capability (no new privileges); fork H; wait for H against the phase's wall deadline
       (a pidfd), kill it at the deadline, kill and reap everything else in the namespace; write the
       status line `phase NAME STATUS CPU WALL TIMED_OUT` on the status fd, which G alone holds; exit.
     H (the program): the job's descriptors on 0-2 (and the channel on 3 if asked, nothing else open),
       a new session, the phase's rlimits, then `include` of the program at this file's top level, in
       the global scope, as `php FILE.php` runs it, with $argv, $argc and $_SERVER's script entries
       set as that command sets them.

   This file declares no function, class or constant: all of it is one closure, called at top level, so
   a run sees the same user functions, classes and constants as under a fresh `php` (none but its own).
   What H inherits that a fresh `php` has not is a copy of this process's memory, which holds no other
   run's secrets: tokens and expected outputs never pass through here (tokens come on each run's own
   stdin, outputs are judged by the host). */

// The run's program is included at top level: its variables are globals, as under `php FILE`.
include (static function (): string {
    if (!class_exists('FFI') || !function_exists('pcntl_fork')) {
        exit(0);  // a php without them (no /etc/php shown to the sandbox): the zygote runs its jobs under the run init
    }
    $c = \FFI::cdef(<<<'C'
        typedef long ssize_t;
        typedef unsigned long size_t;
        struct iovec { void *base; size_t len; };
        struct msghdr { void *name; unsigned int namelen; struct iovec *iov; size_t iovlen; void *control; size_t controllen; int flags; };
        struct rlimit { unsigned long cur; unsigned long max; };
        struct timeval { long sec; long usec; };
        struct rusage { struct timeval utime; struct timeval stime; long rest[14]; };
        struct pollfd { int fd; short events; short revents; };
        ssize_t recvmsg(int, struct msghdr *, int);
        ssize_t read(int, void *, size_t);
        ssize_t write(int, const void *, size_t);
        int close(int);
        int dup2(int, int);
        int open(const char *, int, int);
        long syscall(long, long, long, long, long, long);
        int mount(const char *, const char *, const char *, unsigned long, const char *);
        int prctl(int, unsigned long, unsigned long, unsigned long, unsigned long);
        int capset(void *, void *);
        int setrlimit(int, const struct rlimit *);
        int setsid(void);
        int kill(int, int);
        int wait4(int, int *, int, struct rusage *);
        int poll(struct pollfd *, unsigned long, int);
        int *__errno_location(void);
        char *strerror(int);
        void _exit(int);
        C, "libc.so.6");
    $MAGIC = "ASSAY-RUN-INIT-1";
    $SIGKILL = 9;
    $EINTR = 4;
    $MS_NOSUID = 2;
    $MS_NODEV = 4;
    $PR_SET_DUMPABLE = 4;
    $sys = php_uname('m') === 'aarch64' ? ['clone' => 220] : ['clone' => 56];
    $sys += ['pidfd_open' => 434, 'close_range' => 436];
    $errno = static fn (): int => $c->__errno_location()[0];
    $strerror = static fn (): string => \FFI::string($c->strerror($errno()));
    $say = static function (int $fd, string $text) use ($c): void {
        if ($text !== '') {
            $c->write($fd, $text, strlen($text));
        }
    };
    // A step of the run failed: as the C run init, a line on the job's stderr and exit status 125.
    $fail = static function (array $job, string $stage, string $what) use ($c, $say, $strerror): never {
        $say($job['fds'][2], "sandbox: $stage failed: $what: " . $strerror() . "\n");
        $c->_exit(125);
    };

    // The job's spec, as the C run init reads it (the zygote's native_spec): one phase of `php FILE`.
    $parse = static function (string $spec) use ($MAGIC): array {
        $at = 0;
        $field = static function () use ($spec, &$at): string {
            $nul = strpos($spec, "\0", $at);
            if ($nul === false) {
                throw new \RuntimeException("the job's spec is cut short");
            }
            $text = substr($spec, $at, $nul - $at);
            $at = $nul + 1;
            return $text;
        };
        $number = static function () use ($field): int {
            $text = $field();
            if (!preg_match('/\A-?[0-9]+\z/', $text)) {
                throw new \RuntimeException("a number in the job's spec");
            }
            return (int) $text;
        };
        if ($field() !== $MAGIC) {
            throw new \RuntimeException("the job's spec is not $MAGIC");
        }
        $job = ['uid' => $number(), 'gid' => $number(), 'disk' => $number()];
        if ($number() !== 1) {
            throw new \RuntimeException("a warm PHP job has one phase");
        }
        $job += ['name' => $field(), 'wall_ms' => $number(), 'channel' => $number() !== 0, 'stdin' => $number() !== 0];
        $job['output'] = $number();  // 0 stdout, 1 merged (both to stdout), 2 stderr (both to stderr)
        $job['limits'] = [];
        for ($i = 0; $i < 6; $i++) {
            $job['limits'][] = [$number(), $number(), $number()];
        }
        $job['argv'] = [];
        for ($i = 0, $n = $number(); $i < $n; $i++) {
            $job['argv'][] = $field();
        }
        if (count($job['argv']) !== 2 || str_starts_with($job['argv'][1], '-')) {
            throw new \RuntimeException("a warm PHP job runs `php FILE`");
        }
        for ($i = 0, $n = $number(); $i < $n; $i++) {
            $field();  // the zygote sends a job here only when its environment is this process's own
        }
        $size = $number();
        if ($size < 0 || $size > strlen($spec) - $at) {
            throw new \RuntimeException("the files blob's size");
        }
        $job['blob'] = substr($spec, $at, $size);
        return $job;
    };

    // One job from the zygote: its descriptors (SCM_RIGHTS, close-on-exec) and its spec; null at end of file.
    $receive = static function (int $sock) use ($c): ?array {
        $buf = $c->new("char[65536]");
        $control = $c->new("char[256]");
        $iov = $c->new("struct iovec");
        $iov->base = \FFI::addr($buf[0]);
        $iov->len = 65536;
        $msg = $c->new("struct msghdr");
        $msg->iov = \FFI::addr($iov);
        $msg->iovlen = 1;
        $msg->control = \FFI::addr($control[0]);
        $msg->controllen = 256;
        $n = $c->recvmsg($sock, \FFI::addr($msg), 0x40000000);  // MSG_CMSG_CLOEXEC
        if ($n <= 0) {
            return null;
        }
        $fds = [];
        if ($msg->controllen >= 16) {  // struct cmsghdr: size_t len, int level, int type, then the data
            $len = \FFI::cast("long *", \FFI::addr($control[0]))[0];
            $ints = \FFI::cast("int *", \FFI::addr($control[0]));
            if ($ints[2] === 1 && $ints[3] === 1) {  // SOL_SOCKET, SCM_RIGHTS
                for ($i = 0; $i < intdiv($len - 16, 4); $i++) {
                    $fds[] = $ints[4 + $i];
                }
            }
        }
        $data = \FFI::string($buf, $n);
        if (strlen($data) < 8) {
            throw new \RuntimeException("protocol error");
        }
        $size = unpack("P", $data)[1];
        $data = substr($data, 8);
        while (strlen($data) < $size) {
            $got = $c->read($sock, $buf, min($size - strlen($data), 65536));
            if ($got <= 0) {
                return null;
            }
            $data .= \FFI::string($buf, $got);
        }
        return [$fds, $data];
    };

    $write_files = static function (array $job) use ($fail): void {
        $blob = $job['blob'];
        for ($at = 0; strlen($blob) - $at >= 12;) {
            ['n' => $nlen, 'd' => $dlen] = unpack("Vn/Pd", $blob, $at);
            $at += 12;
            $path = "/sandbox/" . substr($blob, $at, $nlen);
            $at += $nlen;
            if (!is_dir(dirname($path)) && !@mkdir(dirname($path), 0777, true)) {
                $fail($job, "run setup", $path);
            }
            if (@file_put_contents($path, substr($blob, $at, $dlen)) !== $dlen) {
                $fail($job, "run setup", $path);
            }
            $at += $dlen;
        }
    };

    // H: the program, started as the C run init's run_phase starts one; returns the file to include.
    $program = static function (array $job) use ($c, $say, $strerror, $sys): string {
        [$stdin, $stdout, $stderr, $channel] = $job['fds'];
        $in = $job['stdin'] ? $stdin : $c->open("/dev/null", 0, 0);
        $out = $job['output'] === 2 ? $stderr : $stdout;
        $err = $job['output'] === 1 ? $stdout : $stderr;
        if ($in < 0 || $c->dup2($in, 0) < 0 || $c->dup2($out, 1) < 0 || $c->dup2($err, 2) < 0) {
            $c->_exit(127);
        }
        if ($job['channel'] && $c->dup2($channel, 3) < 0) {
            $c->_exit(127);
        }
        // Nothing else open (a phase without the channel has nothing on fd 3): not the status fd, not G's.
        $c->syscall($sys['close_range'], $job['channel'] ? 4 : 3, 0xffffffff, 0, 0, 0);
        $file = $job['argv'][1];
        $path = str_starts_with($file, '/') ? $file : "/sandbox/" . $file;
        $c->open($path, 0x80000, 0);  // O_CLOEXEC: held open on fd 3 or 4 for the whole run, as php holds its script
        $c->setsid();
        $limit = $c->new("struct rlimit");
        foreach ($job['limits'] as [$which, $soft, $hard]) {
            $limit->cur = $soft;
            $limit->max = $hard;
            if ($c->setrlimit($which, \FFI::addr($limit)) !== 0) {
                $say(2, "sandbox: cannot set a limit of {$job['argv'][0]}: " . $strerror() . "\n");
                $c->_exit(127);
            }
        }
        // As `php FILE` sets them (the environment's entries are this process's, the runs' own).
        $now = microtime(true);
        $GLOBALS['argv'] = $_SERVER['argv'] = [$file];
        $GLOBALS['argc'] = $_SERVER['argc'] = 1;
        $_SERVER['PHP_SELF'] = $_SERVER['SCRIPT_NAME'] = $_SERVER['SCRIPT_FILENAME'] = $_SERVER['PATH_TRANSLATED'] = $file;
        $_SERVER['DOCUMENT_ROOT'] = '';
        $_SERVER['REQUEST_TIME_FLOAT'] = $now;
        $_SERVER['REQUEST_TIME'] = (int) $now;
        return $path;
    };

    // G: pid 1 of the run's namespaces. Returns only in H, with the file to include.
    $init = static function (array $job) use ($c, $fail, $say, $write_files, $program, $errno, $sys, $SIGKILL, $EINTR, $MS_NOSUID, $MS_NODEV, $PR_SET_DUMPABLE): string {
        $write = static function (string $path, string $text) use ($job, $fail): void {
            if (@file_put_contents($path, $text) !== strlen($text)) {
                $fail($job, "namespace setup", $path);
            }
        };
        $c->prctl($PR_SET_DUMPABLE, 1, 0, 0, 0);  // else /proc/self/uid_map and gid_map belong to root
        $write("/proc/self/setgroups", "deny");
        $write("/proc/self/uid_map", "{$job['uid']} {$job['uid']} 1");
        $write("/proc/self/gid_map", "{$job['gid']} {$job['gid']} 1");
        $c->prctl($PR_SET_DUMPABLE, 0, 0, 0, 0);  // the run, same uid, cannot ptrace G or take its fds
        if ($c->mount(null, "/", null, 16384 | (1 << 18), null) !== 0) {  // MS_REC | MS_PRIVATE
            $fail($job, "run setup", "make mounts private");
        }
        foreach (["/sandbox", "/tmp", "/dev/shm"] as $i => $where) {
            $opts = sprintf("mode=%s,size=%d", $i === 0 ? "0755" : "1777", $job['disk']);
            if ($c->mount("tmpfs", $where, "tmpfs", $MS_NOSUID | $MS_NODEV, $opts) !== 0) {
                $fail($job, "run setup", $where);
            }
        }
        if ($c->mount("proc", "/proc", "proc", $MS_NOSUID | $MS_NODEV, null) !== 0) {
            $fail($job, "run setup", "mount /proc");
        }
        clearstatcache(true);
        $write_files($job);
        if (!@chdir("/sandbox")) {
            $fail($job, "run setup", "chdir /sandbox");
        }
        $header = $c->new("unsigned int[2]");
        $header[0] = 0x20080522;  // _LINUX_CAPABILITY_VERSION_3, this thread
        $data = $c->new("unsigned int[6]");  // every set empty
        if ($c->capset(\FFI::addr($header[0]), \FFI::addr($data[0])) !== 0) {
            $fail($job, "run setup", "capset");
        }
        if ($c->prctl(38, 1, 0, 0, 0) !== 0) {  // PR_SET_NO_NEW_PRIVS
            $fail($job, "run setup", "no_new_privs");
        }
        $start = hrtime(true);
        $h = \pcntl_fork();
        if ($h < 0) {
            $fail($job, "run", "fork");
        }
        if ($h === 0) {
            return $program($job);
        }
        $pidfd = $c->syscall($sys['pidfd_open'], $h, 0, 0, 0, 0);
        if ($pidfd < 0) {
            $fail($job, "run", "pidfd_open");
        }
        $poller = $c->new("struct pollfd");
        $poller->fd = $pidfd;
        $poller->events = 1;  // POLLIN: H has ended
        $deadline = $start + $job['wall_ms'] * 1000000;
        $timed_out = 0;
        for (;;) {
            $left = intdiv(max(0, $deadline - hrtime(true)), 1000000);
            $ready = $c->poll(\FFI::addr($poller), 1, min($left, 0x7fffffff));
            if ($ready > 0) {
                break;
            }
            if ($ready === 0 && hrtime(true) >= $deadline) {
                $timed_out = 1;
                break;
            }
        }
        $c->close($pidfd);
        if ($timed_out) {
            $c->kill($h, $SIGKILL);
        }
        $status = $c->new("int");
        $usage = $c->new("struct rusage");
        while ($c->wait4($h, \FFI::addr($status), 0, \FFI::addr($usage)) < 0) {
            if ($errno() !== $EINTR) {
                $fail($job, "run", "wait4");
            }
        }
        $c->kill(-1, $SIGKILL);  // as pid 1: every other process in the namespace, then reap them all
        while ($c->wait4(-1, null, 0, null) > 0 || $errno() === $EINTR) {
        }
        $cpu = $usage->utime->sec + $usage->utime->usec / 1e6 + $usage->stime->sec + $usage->stime->usec / 1e6;
        $line = sprintf("phase %s %d %.6f %.6f %d\n", $job['name'], $status->cdata, $cpu, (hrtime(true) - $start) / 1e9, $timed_out);
        for ($i = 0; $i < 4; $i++) {
            $c->close($job['fds'][$i]);
        }
        $say($job['fds'][4], $line);
        $c->_exit(0);  // as pid 1: the kernel now kills everything left in the namespace
    };

    // Serve jobs until the zygote closes the socket; in a run's H, return the file to include.
    $sock = (int) $GLOBALS['argv'][1];
    $say($sock, "ready\n");  // FFI and pcntl are here: the zygote may send jobs
    for (;;) {
        $got = $receive($sock);
        if ($got === null) {
            exit(0);
        }
        [$fds, $spec] = $got;
        $job = null;
        try {
            if (count($fds) !== 5) {
                throw new \RuntimeException("a job comes with five descriptors");
            }
            $job = $parse($spec) + ['fds' => $fds];
        } catch (\RuntimeException $exc) {
            if (count($fds) >= 3) {
                $say($fds[2], "sandbox: run setup failed: " . $exc->getMessage() . "\n");
            }
        }
        $g = 0;
        if ($job !== null) {
            $g = $c->syscall($sys['clone'], 0x10000000 | 0x00020000 | 0x20000000 | 0x08000000 | 17, 0, 0, 0, 0);  // NEWUSER|NEWNS|NEWPID|NEWIPC, SIGCHLD
            if ($g === 0) {
                $c->close($sock);
                unset($got, $spec, $fds);
                return $init($job);
            }
            if ($g < 0) {
                $say($fds[2], "sandbox: namespace setup failed: clone: " . \FFI::string($c->strerror($errno())) . "\n");
                $g = 0;
            }
        }
        foreach ($fds as $fd) {
            $c->close($fd);
        }
        $say($sock, "$g\n");
        while ($g > 0 && $c->wait4($g, null, 0, null) < 0 && $errno() === $EINTR) {
        }
    }
})();
