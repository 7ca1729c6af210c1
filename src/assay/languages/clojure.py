"""Clojure: clojure.main loads prompt + completion + tests (MultiPL-E's shape); clojure.test reports.

Upstream runs `clojure -M -Dclojure.main.report=stderr prog.clj`; Debian's launcher is plain
`java -cp clojure.jar clojure.main`, which Assay runs directly with flags for short-lived JVMs.

The build phase loads the solution alone in a JVM of its own: reader errors and compile errors
(unbalanced parentheses, unresolved symbols, wrong special forms) are compile errors; an exception
thrown while running the solution's top-level code is left to the run phase, which reports it.
Upstream calls `(run-test ...)`, which only prints failures; Assay routes clojure.test's reports:
a failed `is` exits with ASSERT_EXIT, an error (an exception inside `is`) exits 1.

Cases: main.clj is the sample, then the harness: it loads `assay_case.clj` (its own namespace, which
the sample's definitions do not reach), binds `candidate`, calls each case (MultiPL-E's own
`(candidate ...)` text) under try/catch Throwable and writes its result, encoded at the declared type,
to fd 3 (a FileOutputStream on a FileDescriptor set to 3 through sun.misc.Unsafe: the JDK has no
public way to name a descriptor, and a pipe cannot be reopened through /dev/fd by another user).
Clojure's `=`, which MultiPL-E's tests use, tells 1 from 1.0: the encoder writes a Double where the
type says int, and a Ratio or BigDecimal where it says float, as values no type decodes; a Long where
the type says float is taken as the number (MultiPL-E's expected literal is then mostly a float, which
`=` would not equate, but for 7 problems whose literals are ints there). Vectors, lists and lazy
seqs are all sequences, as `=` has them; a set or a map is not a list.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay import values
from assay.languages.base import ASSERT_EXIT, GiB, Language, PhaseLimits, Toolchain, ToolchainMissing, Unrepresentable
from assay.languages.harness import NotSplittable, balanced
from assay.languages.support import digest, dump_cds, file_stamp, run_host, support_dir
from assay.problems import CaseTests, Problem
from assay.values import Signature, Type

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


# The case harness's namespace (see assay.judging.records). A type is a keyword (:int, :float, :str,
# :bool, :none, :any) or a vector [:list t], [:tuple t ...], [:dict k v], [:optional t], [:union t ...].
# What does not fit its type is written as {"wrong type": "..."}, which no type decodes.
CASE_NS = r"""(ns assay.case (:require [clojure.string]))

(def ^:private channel
  (delay
    (let [unsafe (.get (doto (.getDeclaredField sun.misc.Unsafe "theUnsafe") (.setAccessible true)) nil)
          fd (java.io.FileDescriptor.)]
      (.putInt ^sun.misc.Unsafe unsafe fd (.objectFieldOffset ^sun.misc.Unsafe unsafe (.getDeclaredField java.io.FileDescriptor "fd")) (int 3))
      (java.io.FileOutputStream. fd))))

(defn- emit [^String line]
  (let [^java.io.FileOutputStream out @channel]
    (.write out (.getBytes (str line "\n") "UTF-8"))
    (.flush out)))

(defn- items [parts] (str "[" (clojure.string/join "," parts) "]"))

(defn- jstr [^String s]
  (let [b (StringBuilder. "\"")]
    (doseq [c s]
      (let [n (int c)]
        (cond (= c \") (.append b "\\\"")
              (= c \\) (.append b "\\\\")
              (= c \newline) (.append b "\\n")
              (or (< n 32) (= n 127) (Character/isSurrogate c)) (.append b (format "\\u%04x" n))
              :else (.append b c))))
    (str (.append b "\""))))

(defn- wrong [v] (str "{\"wrong type\": " (jstr (binding [*print-length* 20] (pr-str v))) "}"))

(defn- kind [t] (if (vector? t) (first t) t))

(defn- dbl [v] (Double/toString (double v)))

(declare enc)

(defn- dyn [v]
  (cond (nil? v) "null"
        (instance? Boolean v) (str v)
        (integer? v) (str v)
        (float? v) (dbl v)
        (string? v) (jstr v)
        (or (sequential? v) (set? v)) (items (map dyn v))
        (map? v) (items (map (fn [[k x]] (items [(dyn k) (dyn x)])) v))
        :else (wrong v)))

(defn- pick [v alts]
  (let [first-of (fn [& kinds] (some (fn [a] (when (some #{(kind a)} kinds) a)) alts))]
    (or (cond (integer? v) (or (first-of :int) (first-of :float))
              (float? v) (first-of :float)
              (string? v) (first-of :str)
              (instance? Boolean v) (first-of :bool)
              (sequential? v) (first-of :list :tuple :vtuple)
              (set? v) (first-of :set)
              (map? v) (first-of :dict))
        :wrong)))

(defn enc [v t]
  (case (kind t)
    :int (if (integer? v) (str v) (wrong v))
    :float (cond (float? v) (dbl v) (integer? v) (str v) :else (wrong v))
    :str (if (string? v) (jstr v) (wrong v))
    :bool (if (instance? Boolean v) (str v) (wrong v))
    :none (if (nil? v) "null" (wrong v))
    (:list :vtuple) (if (sequential? v) (items (map #(enc % (second t)) v)) (wrong v))
    :set (if (set? v) (items (map #(enc % (second t)) v)) (wrong v))
    :tuple (if (and (sequential? v) (= (count v) (dec (count t)))) (items (map enc v (rest t))) (wrong v))
    :dict (if (map? v) (items (map (fn [[k x]] (items [(enc k (nth t 1)) (enc x (nth t 2))])) v)) (wrong v))
    :optional (if (nil? v) "null" (enc v (second t)))
    :union (enc v (pick v (rest t)))
    :any (dyn v)
    (wrong v)))

(defn- message [^Throwable e]
  (let [m (try (str (.getName (class e)) (when-let [msg (.getMessage e)] (str ": " msg))) (catch Throwable _ "exception"))
        m (clojure.string/replace m #"[\r\n]+" " ")]
    (subs m 0 (min 300 (count m)))))

(defn run [t thunks]
  (doseq [[i thunk] (map-indexed vector thunks)]
    (emit (try (str i " v " (enc (thunk) t))
               (catch Throwable e (str i " e " (message e))))))
  (emit (str "done " (count thunks)))
  (System/exit 0))
"""


class Clojure(Language):
    """Clojure 1.11 (Debian's clojure) on the system JVM."""

    name = "clojure"
    aliases = ("clj",)
    display = "Clojure"
    multipl_e = "clj"
    stops = ("\n(def", "\n;", "\n(")
    definition = r"\(defn-?\s+{name}[\s)]"
    source = "main.clj"
    tools = ("java", "clojure")
    install_hint = "apt-get install -y clojure"
    build = f"{{java}} {JVM_FLAGS} -cp {CLOJURE_JAR} clojure.main assay_build.clj"
    # $ASSAY_CLOJURE_CASES: the harness's namespace compiled ahead of time (else the jar again, and a
    # case run compiles assay_case.clj itself: about 0.4 s of CPU more).
    run = f"{{java}} {JVM_FLAGS} -cp {CLOJURE_JAR}:$ASSAY_CLOJURE_CASES clojure.main main.clj"
    env: ClassVar[dict[str, str]] = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    stub = '  (throw (Exception. "stub")))\n'
    # The JVM manages its own memory (-Xmx above); its GC and JIT threads count as processes.
    limits: ClassVar[PhaseLimits] = PhaseLimits(run_memory_bytes=None, memory_bytes=4 * GiB)

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
        env["ASSAY_CLOJURE_CASES"] = CLOJURE_JAR
        classes = case_classes(found.tools["java"], found.version)
        if classes is not None:
            env["ASSAY_CLOJURE_CASES"] = classes
            binds.add(os.path.dirname(classes))
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


    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `(is (= (candidate ...) expected))` lines: the call."""
        calls: list[tuple[str, str]] = []
        try:
            for found in _IS.finditer(tests):  # over the whole text: a string literal may hold a newline
                at = found.end() - len("(candidate")
                calls.append((tests[at : balanced(tests, at, quotes='"')], ""))
        except NotSplittable:
            return None
        if len(calls) != sum(1 for line in tests.splitlines() if line.strip().startswith("(is ")):
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's Clojure literals: vectors for lists and tuples, `{k v}` maps, nil."""
        return clojure_literal(value, t)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`(candidate a b)`, the values as Python has them (an int where the type says float stays a Long)."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        for a, t in zip(args, signature.param_types, strict=True):
            _coerce(a, t)  # it must fit the type
        return "(" + " ".join(["candidate", *(clojure_literal(a, t) for a, t in zip(args, signature.param_types, strict=True))]) + ")"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """main.clj: the sample, then the harness; the build phase's check of the sample alone, as ever."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        thunks = "\n".join(f"   (clojure.core/fn [] {call})" for call in calls)
        harness = (
            "\n(try (clojure.core/require 'assay.case)\n"
            '  (catch java.io.FileNotFoundException _ (clojure.core/load-file "assay_case.clj")))\n'
            f"(assay.case/run {type_form(problem.tests.signature.returns)}\n"
            f" (clojure.core/let [candidate {problem.entry_point}]\n  [\n{thunks}]))\n"
        )
        return {
            self.source: (code + "\n" + harness).encode(),
            "solution.clj": code.encode(),
            "assay_build.clj": BUILD_CHECK.encode(),
            "assay_case.clj": CASE_NS.encode(),
        }

    def normalize(self, value: Any, t: Type) -> Any:
        """Where the type is `any`, a tuple is a list (a vector in Clojure, as MultiPL-E writes both)."""
        return _any_tuples_as_lists(value, t)


_IS = re.compile(r"^[ \t]*\(is \(= \(candidate", re.M)


def _any_tuples_as_lists(value: Any, t: Type) -> Any:
    k = t.kind
    if k == "any":
        return _lists(value)
    if k in ("list", "vtuple") and isinstance(value, (list, tuple)):
        items = [_any_tuples_as_lists(v, t.args[0]) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if k == "tuple" and isinstance(value, tuple) and len(value) == len(t.args):
        return tuple(_any_tuples_as_lists(v, a) for v, a in zip(value, t.args, strict=True))
    if k == "dict" and isinstance(value, dict):
        return {a: _any_tuples_as_lists(b, t.args[1]) for a, b in value.items()}
    if k == "optional" and value is not None:
        return _any_tuples_as_lists(value, t.args[0])
    if k == "union":
        alt = next((a for a in t.args if values.fits(value, a)), None)
        return _any_tuples_as_lists(value, alt) if alt is not None else value
    return value


def _lists(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {a: _lists(b) for a, b in value.items()}
    return value


def _coerce(value: Any, t: Type) -> Any:
    try:
        return values.coerce(value, t)
    except values.UnsupportedType as exc:
        raise Unrepresentable(f"type: {exc}") from None


def type_form(t: Type) -> str:
    """The type as the harness's encoder reads it: a keyword, or a vector [:kind arg ...]."""
    if not t.args:
        return f":{t.kind}"
    return "[" + " ".join([f":{t.kind}", *(type_form(a) for a in t.args)]) + "]"


def clojure_literal(value: Any, t: Type = values.ANY) -> str:
    """A Clojure literal for a plain value, as MultiPL-E writes it."""
    k = t.kind
    if k == "optional":
        return "nil" if value is None else clojure_literal(value, t.args[0])
    if k == "union":
        alt = next((a for a in t.args if values.fits(value, a)), values.ANY)
        return clojure_literal(value, alt)
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "##NaN"
        if math.isinf(value):
            return "##Inf" if value > 0 else "##-Inf"
        return repr(value)
    if isinstance(value, str):
        return clojure_string(value)
    inner = t.args[0] if k in ("list", "vtuple", "set") else values.ANY
    if isinstance(value, (list, tuple)):
        parts = [clojure_literal(v, t.args[i] if k == "tuple" and i < len(t.args) else inner) for i, v in enumerate(value)]
        return "[" + " ".join(parts) + "]"
    if isinstance(value, (set, frozenset)):
        return "#{" + " ".join(clojure_literal(v, inner) for v in sorted(value, key=repr)) + "}"
    if isinstance(value, dict):
        kt, vt = (t.args[0], t.args[1]) if k == "dict" else (values.ANY, values.ANY)
        return "{" + " ".join(f"{clojure_literal(a, kt)} {clojure_literal(b, vt)}" for a, b in value.items()) + "}"
    raise Unrepresentable(f"type: {values._short(value)} is not plain data")


def clojure_string(text: str) -> str:
    """A Clojure string literal: quotes and backslashes escaped, control characters but newlines and tabs as \\u escapes."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif (ord(ch) < 0x20 and ch not in "\n\t") or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


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


def case_classes(java: str, version: str) -> str | None:
    """The harness's namespace compiled ahead of time (classes only), once per machine outside the
    sandbox, into a support directory shown read-only inside it; None when it cannot be built."""
    key = digest(os.path.realpath(java), version, file_stamp(os.path.realpath(CLOJURE_JAR)), CASE_NS)

    def build(work: Path) -> None:
        (work / "src" / "assay").mkdir(parents=True)
        (work / "src" / "assay" / "case.clj").write_text(CASE_NS)
        (work / "classes").mkdir()
        run_host([java, "-cp", f"{CLOJURE_JAR}:{work / 'src'}", f"-Dclojure.compile.path={work / 'classes'}",
                  "-Dclojure.spec.skip-macros=true", "clojure.main", "-e", "(compile 'assay.case)"], work)
        shutil.rmtree(work / "src")
        for other in (work / "classes").iterdir():  # what else the compiler loaded from source: the jar has it
            if other.name != "assay":
                shutil.rmtree(other)

    try:
        classes = support_dir("clojure-cases", key, build) / "classes"
    except (OSError, subprocess.SubprocessError):
        return None
    return None if any(ch.isspace() or ch == ":" for ch in str(classes)) else str(classes)  # unquoted, a path list


def java_modules(java: str) -> str:
    """The JDK's class library (a JDK upgrade invalidates the archive)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(java))), "lib", "modules")
