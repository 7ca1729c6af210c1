"""Clojure: clojure.main loads prompt + completion + tests (MultiPL-E's shape); clojure.test reports.

Upstream runs `clojure -M -Dclojure.main.report=stderr prog.clj`; Debian's launcher is plain
`java -cp clojure.jar clojure.main`, which Assay runs directly with flags for short-lived JVMs.

The build phase loads the solution alone in a JVM of its own: reader errors and compile errors
(unbalanced parentheses, unresolved symbols, wrong special forms) are compile errors; an exception
thrown while running the solution's top-level code is left to the run phase, which reports it.
Upstream calls `(run-test ...)`, which only prints failures; Assay routes clojure.test's reports:
a failed `is` exits with ASSERT_EXIT, an error (an exception inside `is`) exits 1.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import subprocess
from pathlib import Path
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, Language, RunLimits, Toolchain, ToolchainMissing
from assay.languages.support import digest, dump_cds, file_stamp, support_dir
from assay.problems import Problem

CLOJURE_JAR = "/usr/share/java/clojure.jar"  # Debian's libclojure-java (the `clojure` package's launcher uses it)

# C1 only and the serial collector: a Clojure start costs about half the CPU time of the defaults;
# the heap is capped here, as the JVM reserves far more address space than it uses (no ulimit -v).
# clojure.spec's checks of macro calls are skipped (they load spec: ~0.5 s of CPU per JVM); the
# macros still reject malformed calls themselves, with plainer messages.
# $ASSAY_CLOJURE_CDS: a class-data-sharing archive of clojure.core and clojure.test when one could
# be recorded (a third less CPU per start), else empty.
JVM_FLAGS = (
    "-Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Xshare:auto $ASSAY_CLOJURE_CDS"
    " -Dclojure.main.report=stderr -Dclojure.spec.skip-macros=true"
)

# Loads the solution: a reader or compiler error exits 1 (a compile error); an exception thrown by
# the solution's own top-level code (the execution phase) is the run phase's to report.
BUILD_CHECK = """
(try
  (load-file "solution.clj")
  (catch clojure.lang.Compiler$CompilerException e
    (when-not (= :execution (:clojure.error/phase (ex-data e)))
      (binding [*out* *err*]
        (println (clojure.main/ex-str (clojure.main/ex-triage (Throwable->map e)))))
      (System/exit 1)))
  (catch Throwable _ nil))
(System/exit 0)
"""

# Before the tests: a failed assertion exits ASSERT_EXIT, an exception inside `is` exits 1 (after
# clojure.test printed its usual report).
TEST_PRELUDE = f"""
(require 'clojure.test)
(let [fail (get-method clojure.test/report :fail)
      error (get-method clojure.test/report :error)]
  (defmethod clojure.test/report :fail [m] (fail m) (flush) (System/exit {ASSERT_EXIT}))
  (defmethod clojure.test/report :error [m] (error m) (flush) (System/exit 1)))
"""


class Clojure(Language):
    """Clojure 1.11 (Debian's clojure) on the system JVM."""

    name = "clojure"
    aliases = ("clj",)
    display = "Clojure"
    source = "main.clj"
    tools = ("java", "clojure")
    install_hint = "apt-get install -y clojure"
    build = f"{{java}} {JVM_FLAGS} -cp {CLOJURE_JAR} clojure.main assay_build.clj"
    run = f"{{java}} {JVM_FLAGS} -cp {CLOJURE_JAR} clojure.main main.clj"
    env: ClassVar[dict[str, str]] = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    stub = '  (throw (Exception. "stub")))\n'
    # The JVM manages its own memory (-Xmx above); its GC and JIT threads count as processes.
    limits: ClassVar[RunLimits] = RunLimits(run_memory_bytes=None, memory_bytes=4 * GiB)

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """java and Debian's clojure launcher; the sandbox must also show the JVM's config under /etc,
        and the class-data-sharing archive when one could be recorded."""
        found = super().toolchain()
        if not os.path.exists(CLOJURE_JAR):
            raise ToolchainMissing(f"Clojure: {CLOJURE_JAR} not found; install with: {cls.install_hint}")
        binds = set(found.ro_binds) | set(jvm_config_dirs(found.tools["java"]))
        env = {**found.env, "ASSAY_CLOJURE_CDS": ""}
        archive = cds_archive(found.tools["java"], found.version)
        if archive is not None:
            env["ASSAY_CLOJURE_CDS"] = f"-XX:SharedArchiveFile={archive}"
            binds.add(os.path.dirname(archive))
        return dataclasses.replace(found, ro_binds=tuple(sorted(binds)), env=env)

    @classmethod
    def read_version(cls, tool_path: str) -> str:
        """Clojure's version and the JVM's (the launcher has no --version)."""
        try:
            clj = subprocess.run([tool_path, "-cp", CLOJURE_JAR, "clojure.main", "-e", "(print (clojure-version))"],
                                 capture_output=True, text=True, timeout=120).stdout.strip()
            jvm = subprocess.run([tool_path, "-version"], capture_output=True, text=True, timeout=60).stderr
        except (OSError, subprocess.SubprocessError) as exc:
            return f"unknown ({exc})"
        jvm_line = next((line.strip() for line in jvm.splitlines() if line.strip()), "unknown JVM")
        return f"Clojure {clj or 'unknown'} on {jvm_line}"

    def files(self, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """main.clj (the whole program), and the solution alone with the build phase's check."""
        return {
            self.source: self.program(problem, code, marker).encode(),
            "solution.clj": code.encode(),
            "assay_build.clj": BUILD_CHECK.encode(),
        }

    def wrap_tests(self, tests: str, marker: str) -> str:
        """clojure.test's reports routed to exit statuses; the marker after the tests ran (then exit, agents or not)."""
        return TEST_PRELUDE + tests + f'\n(println)\n(println "{marker}")\n(flush)\n(System/exit 0)\n'


def jvm_config_dirs(java: str) -> list[str]:
    """Directories outside /usr that the JVM's conf/ links into (Debian: /etc/java-17-openjdk, whose
    java.security the JVM must read, e.g. for SecureRandom, which clojure.spec uses)."""
    home = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    dirs: set[str] = set()
    for root, _, names in os.walk(os.path.join(home, "conf")):
        for name in names:
            path = os.path.join(root, name)
            if os.path.islink(path):
                target = os.path.realpath(path)
                parts = target.split("/")
                if parts[1] == "etc" and len(parts) > 3 and parts[2].startswith("java"):
                    dirs.add("/" + "/".join(parts[1:3]))
    return sorted(d for d in dirs if os.path.isdir(d))


# What the archive records: the classes a MultiPL-E program and the build check load.
CDS_SAMPLE = """
(require '[clojure.test :refer [deftest is run-test]] '[clojure.string :as str] '[clojure.set :as set])
(defn sample [xs] (->> xs (map inc) (filter odd?) (reduce +)))
(def candidate sample)
(deftest test-sample
  (is (= (candidate [1 2 3 4]) 8))
  (is (= (str/join "," (sort (set/union #{1} #{2}))) "1,2")))
(run-test test-sample)
(println (format "%.2f" 1.5) (Math/abs -1) (apply str (reverse "abc")) (frequencies [1 1 2]) (sort-by - [1 2 3])
         (str/split "a b" #" ") (into {} [[:a 1]]) (mapv vector [1 2] [3 4]) (re-find #"[0-9]+" "ab12"))
(try (load-string "(undefined-function 1)")
  (catch clojure.lang.Compiler$CompilerException e
    (println (:clojure.error/phase (ex-data e)) (clojure.main/ex-str (clojure.main/ex-triage (Throwable->map e))))))
"""


def cds_archive(java: str, version: str) -> str | None:
    """A dynamic class-data-sharing archive of Clojure's start-up, recorded once per machine outside
    the sandbox (from Assay's own sample program) into a support directory shown read-only inside it;
    None when it cannot be recorded (the JVM then starts without it)."""
    flags = JVM_FLAGS.replace("$ASSAY_CLOJURE_CDS", "{cds}").split()  # recorded as the runs use it
    key = digest(os.path.realpath(java), version, file_stamp(os.path.realpath(CLOJURE_JAR)), file_stamp(java_modules(java)), flags, CDS_SAMPLE)

    def build(work: Path) -> None:
        (work / "sample.clj").write_text(CDS_SAMPLE)
        if not dump_cds([java, *flags, "-cp", CLOJURE_JAR, "clojure.main", "sample.clj"], work / "clojure.jsa", work):
            raise subprocess.SubprocessError("the JVM could not record or use the archive")
        (work / "sample.clj").unlink()

    try:
        archive = support_dir("clojure", key, build) / "clojure.jsa"
    except (OSError, subprocess.SubprocessError):
        return None  # not cached: the next process tries again
    return None if any(ch.isspace() for ch in str(archive)) else str(archive)  # the flag is not quoted


def java_modules(java: str) -> str:
    """The JDK's class library (a JDK upgrade invalidates the archive)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(java))), "lib", "modules")
