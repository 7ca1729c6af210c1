"""Java: javac (OpenJDK 17) builds the program, `java -ea` runs it, as MultiPL-E runs it.

MultiPL-E's Java programs are one `class Problem` whose `main` holds the tests (`assert`s, so the
JVM runs with -ea) and import org.javatuples.*, a library Debian does not package: Assay compiles
its own javatuples-compatible classes (generated below) once per machine into a support directory
that the sandbox shows read-only. The same directory holds a class-data-sharing archive of javac,
which cuts the compiler's start-up by about a third; without it javac still runs, only slower.

This module also holds what Java, C# and Scala share: splicing a chat model's whole program
(helpers, its own class name, a demo `main`) into MultiPL-E's `class Problem` shape.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, GiB, RunLimits, Toolchain, ToolchainMissing
from assay.problems import Problem

# ---------------------------------------------------------------------------------------------
# Support directories: files built once per machine (outside the sandbox, from Assay's own trusted
# sources) and shown read-only inside it.


def support_root() -> Path:
    """Where support directories live: $ASSAY_TOOLCHAIN_CACHE, else <cache>/toolchains
    ($ASSAY_CACHE_DIR, else ~/.cache/assay, as the CLI's --cache-dir)."""
    explicit = os.environ.get("ASSAY_TOOLCHAIN_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    return Path(os.environ.get("ASSAY_CACHE_DIR") or Path.home() / ".cache" / "assay").expanduser() / "toolchains"


def support_dir(kind: str, key: str, build: Callable[[Path], None]) -> Path:
    """A directory filled once by build(dir), cached as <support root>/<kind>-<key>, world-readable.

    Built in a temporary sibling and renamed into place, so concurrent builders never see half a
    directory. Falls back to /var/tmp when the cache is not writable, or lies under /tmp, which each
    sandboxed run replaces with its own. Raises OSError or subprocess.SubprocessError when the build
    itself fails.
    """
    roots = [support_root(), Path("/var/tmp") / f"assay-toolchains-{os.getuid()}"]
    hidden = tuple(os.path.realpath(p) + "/" for p in {"/tmp", "/dev/shm", tempfile.gettempdir()})
    error: Exception | None = None
    for root in roots:
        if (os.path.realpath(root) + "/").startswith(hidden):
            continue  # the sandbox would not see it
        final = root / f"{kind}-{key}"
        if (final / ".complete").exists():
            return final
        try:
            root.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=f".{kind}-", dir=root))
        except OSError as exc:
            error = exc
            continue
        try:
            build(work)
            (work / ".complete").write_text(key + "\n")
            for path in [work, *work.rglob("*")]:
                path.chmod(0o755 if path.is_dir() else 0o644)
            try:
                os.rename(work, final)
            except OSError:
                if not (final / ".complete").exists():
                    raise
            return final
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)
    raise error or OSError(f"no writable directory for the {kind} support files")


def digest(*parts: object) -> str:
    """A short key for what a support directory was built from."""
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:16]


def file_stamp(path: str) -> str:
    """path, size and mtime: enough to notice that a package was upgraded."""
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}:missing"
    return f"{path}:{st.st_size}:{int(st.st_mtime)}"


def etc_dirs(*roots: str) -> list[str]:
    """The directories under /etc that files under roots link to (Debian keeps JDK configuration
    there, and the sandbox shows only a few files of /etc)."""
    found: set[str] = set()
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                if os.path.islink(path):
                    target = os.path.realpath(path)
                    where = target if os.path.isdir(target) else os.path.dirname(target)
                    if where.startswith("/etc/") and os.path.isdir(where):
                        found.add(where)
    return sorted(p for p in found if not any(p.startswith(q + "/") for q in found))


def run_host(argv: list[str], cwd: Path, timeout: float = 300) -> None:
    """Run a trusted host command (a compiler on Assay's own sources); raise with its output if it fails."""
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env={**os.environ, "LC_ALL": "C.UTF-8"})
    if out.returncode != 0:
        raise subprocess.SubprocessError(f"{' '.join(argv[:3])}... failed ({out.returncode}): {(out.stdout + out.stderr)[-1500:]}")


def dump_cds(java_argv: list[str], archive: Path, cwd: Path, flag: str = "-XX:") -> bool:
    """Record a dynamic class-data-sharing archive of a JVM program (java_argv, with {cds} where
    the flag goes) and check that the JVM accepts it; False (and no archive) when it does not."""
    def with_flags(*values: str) -> list[str]:
        return [v for a in java_argv for v in (values if a == "{cds}" else (a,))]

    strict = flag[: -len("XX:")] + "Xshare:on"  # fail rather than run without the archive
    try:
        run_host(with_flags(f"{flag}ArchiveClassesAtExit={archive}"), cwd)
        run_host(with_flags(f"{flag}SharedArchiveFile={archive}", strict), cwd)
    except (OSError, subprocess.SubprocessError):
        archive.unlink(missing_ok=True)
        return False
    return archive.exists()


# ---------------------------------------------------------------------------------------------
# Whole programs from chat models, for languages whose MultiPL-E prompt is one class (or object)
# `Problem` that the tests close after their `main`.


@dataclasses.dataclass
class Block:
    """A top-level declaration: its header (up to the opening brace), its body and its end."""

    start: int
    open: int  # index of "{"
    close: int  # index of the matching "}" (len(text) when never closed)
    header: str


class ClassSplicer:
    """Splices a whole program into prompt + tests: the members of the class that defines the entry
    point (minus any demo main) go into `Problem`, other top-level types after the tests.

    Subclasses of BraceLanguage mix this in and set the regexes."""

    import_re: ClassVar[re.Pattern[str]] = re.compile(r"^[ \t]*import\s+[\w.*\s]+;[ \t]*$", re.M)
    drop_re: ClassVar[re.Pattern[str]] = re.compile(r"^[ \t]*package\s+[\w.]+\s*;?[ \t]*$", re.M)
    type_re: ClassVar[re.Pattern[str]] = re.compile(r"\b(class|interface|enum|record)\s+(\w+)")
    container_re: ClassVar[re.Pattern[str] | None] = None  # blocks whose contents count as top level (C# namespaces)
    main_re: ClassVar[re.Pattern[str]] = re.compile(r"\bstatic\s+void\s+main\s*\(")
    decl_re: ClassVar[re.Pattern[str]] = re.compile(r"\b(class|interface|enum|record|public|private|protected|static|final)\b")
    statement_end: ClassVar[str] = ";"  # what ends a declaration without a body ("\n" for Scala)
    method_re: ClassVar[str] = r"\b{name}\s*[<(]"  # where the entry point is declared (formatted with name)
    dummy_open: ClassVar[str] = "    private static void assayUnused() {\n"  # reopened so the tests' "}" has something to close
    strip_public: ClassVar[bool] = True  # top-level public types must live in their own file (Java)
    triple_quotes: ClassVar[bool] = True
    char_literals: ClassVar[bool] = True

    def splice(self, problem: Problem, code: str) -> tuple[str, str]:
        """(prompt + completion, top-level declarations to put after the tests)."""
        if code.startswith(problem.prompt) and self.depth(code[len(problem.prompt):]) >= 0:
            return code, ""  # a completion that leaves the function open, as the tests expect
        spliced = self.whole_program(problem, code)
        return spliced if spliced is not None else (code, "")

    def whole_program(self, problem: Problem, code: str) -> tuple[str, str] | None:
        """The program rebuilt around the class that defines the entry point; None when there is none."""
        header = self.prompt_header(problem.prompt)
        if header is None:
            return None
        entry = re.compile(self.method_re.format(name=re.escape(problem.entry_point)))
        blocks = self.top_level_blocks(code)
        target = next((b for b in blocks if self.type_re.search(b.header) and self.declares(code[b.open + 1 : b.close], entry)), None)
        if target is not None:
            members = code[target.open + 1 : target.close]
            others = [b for b in blocks if b is not target and self.type_re.search(b.header) and not self.has_main(code[b.open + 1 : b.close])]
        else:  # bare methods, no class around them
            loose = self.outside_blocks(code, [b for b in blocks if self.type_re.search(b.header)])
            if not self.declares(loose, entry):
                return None
            members = self.import_re.sub("", loose)  # the imports go before the prompt's (below)
            others = [b for b in blocks if self.type_re.search(b.header)]
        members = self.drop_imports(self.remove_main(members))
        imports = [m.group(0).strip() for m in self.import_re.finditer(self.outside_blocks(code, blocks))]
        have = {line.strip() for line in header.splitlines()}
        extra = "".join(line + "\n" for line in dict.fromkeys(imports) if line not in have)
        trailer = "".join(self.top_level_text(code, b) + "\n" for b in others)
        loose_types = self.drop_re.sub("", self.import_re.sub("", self.outside_blocks(code, blocks))).strip()
        if target is not None and self.type_re.search(loose_types):
            trailer += loose_types + "\n"  # e.g. Scala's `case class Point(x: Int, y: Int)`
        return extra + header + members.rstrip() + "\n" + self.dummy_open, trailer

    # ------------------------------------------------------------ structure

    def prompt_header(self, prompt: str) -> str | None:
        """The prompt up to and including the line that opens class Problem."""
        match = re.search(r"^.*\b(class|object)\s+Problem\b.*\{[ \t]*\n", prompt, re.M)
        return prompt[: match.end()] if match else None

    def declares(self, body: str, entry: re.Pattern[str]) -> bool:
        """Whether body declares the entry point at its own top level (not just calls it)."""
        top = self.outside_blocks(body, self.top_level_blocks(body, flatten=False), keep_headers=True)
        for match in entry.finditer(top):
            line_start = top.rfind("\n", 0, match.start()) + 1
            before = top[line_start : match.start()]
            if re.search(r"[\w>\]]\s*$", before) and not re.search(r"(\breturn|=|\.|\(|,)\s*$", before):
                return True  # a type or keyword before the name: a declaration, not a call
            if re.search(r"\bdef\s*$", before):
                return True
        return False

    def has_main(self, body: str) -> bool:
        return bool(self.main_re.search(self.outside_blocks(body, self.top_level_blocks(body, flatten=False), keep_headers=True)))

    def remove_main(self, members: str) -> str:
        """Members without a `main` method (the tests bring their own)."""
        for _ in range(8):
            blocks = self.top_level_blocks(members, flatten=False)
            top = self.outside_blocks(members, blocks, keep_headers=True)
            match = self.main_re.search(top)
            if match is None:
                break
            line_start = members.rfind("\n", 0, match.start()) + 1
            block = next((b for b in blocks if b.start <= match.start() < b.open), None)
            if block is not None and not self.decl_re.search(members[match.end() : block.open]):
                end = block.close + 1  # main { ... }
            elif self.statement_end == ";":
                semi = top.find(";", match.end())  # static void Main() => ...;
                end = len(members) if semi < 0 else semi + 1
            else:  # def main(args: Array[String]): Unit = expression (maybe on the next line)
                end = members.find("\n", match.end())
                end = len(members) if end < 0 else end
                if members[line_start:end].rstrip().endswith("="):
                    nxt = members.find("\n", end + 1)
                    end = len(members) if nxt < 0 else nxt
            members = members[:line_start] + members[end:]
        return members

    def drop_imports(self, members: str) -> str:
        return self.drop_re.sub("", members)

    def top_level_text(self, code: str, block: Block) -> str:
        """A type's declaration, from the line of its keyword (not the imports before it) to its brace."""
        start = block.start
        kinds = list(self.type_re.finditer(code, block.start, block.open))
        if kinds:
            start = code.rfind("\n", block.start, kinds[-1].start()) + 1 or block.start
        text = code[start : block.close + 1]
        if block.close >= len(code):
            text = code[start:] + "\n}"
        if self.strip_public:
            text = re.sub(r"^(\s*(?:@\w+(?:\([^)]*\))?\s*)*)public\s+", r"\1", text, count=1)
        return text

    def top_level_blocks(self, text: str, flatten: bool = True) -> list[Block]:
        """Brace blocks at depth 0 with their headers (the text since the previous ; } { or blank start)."""
        blocks: list[Block] = []
        depth = 0
        boundary = 0  # where the current top-level statement started
        open_at = -1
        for i, ch in self.code_chars(text):
            if ch == "{":
                if depth == 0:
                    open_at = i
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    blocks.append(Block(boundary, open_at, i, text[boundary:open_at]))
                    boundary = i + 1
                elif depth < 0:
                    depth = 0
                    boundary = i + 1
            elif ch == ";" and depth == 0:
                boundary = i + 1
        if depth > 0 and open_at >= 0:
            blocks.append(Block(boundary, open_at, len(text), text[boundary:open_at]))
        for block in blocks:  # headers start at their first non-blank line
            stripped = len(block.header) - len(block.header.lstrip())
            if self.statement_end == "\n":  # no semicolons: the header is the last declaration's lines
                decls = list(self.decl_re.finditer(block.header))
                if decls:
                    stripped = block.header.rfind("\n", 0, decls[-1].start()) + 1
            block.start += stripped
            block.header = block.header[stripped:].strip()
        if flatten and self.container_re is not None:
            out: list[Block] = []
            for block in blocks:
                if self.container_re.search(block.header) and not self.type_re.search(block.header):
                    inner = text[block.open + 1 : block.close]
                    for sub in self.top_level_blocks(inner, flatten=True):
                        shift = block.open + 1
                        out.append(Block(sub.start + shift, sub.open + shift, min(sub.close + shift, block.close), sub.header))
                else:
                    out.append(block)
            blocks = out
        return blocks

    def outside_blocks(self, text: str, blocks: list[Block], keep_headers: bool = False) -> str:
        """text with the given blocks (header and body, or only the body) blanked out."""
        out = list(text)
        for block in blocks:
            start, end = (block.open + 1, block.close) if keep_headers else (block.start, block.close + 1)
            for i in range(start, min(end, len(text))):
                if out[i] != "\n":
                    out[i] = " "
        return "".join(out)

    def depth(self, text: str) -> int:
        depth = 0
        for _, ch in self.code_chars(text):
            depth += 1 if ch == "{" else -1 if ch == "}" else 0
        return depth

    def code_chars(self, text: str) -> list[tuple[int, str]]:
        """(index, char) of the braces and semicolons outside strings, chars and comments."""
        out: list[tuple[int, str]] = []
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch == "/" and text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif ch == "/" and text.startswith("/*", i):
                j = text.find("*/", i + 2)
                i = n if j < 0 else j + 2
            elif ch == '"' and self.triple_quotes and text.startswith('"""', i):
                j = text.find('"""', i + 3)
                i = n if j < 0 else j + 3
            elif ch == '"':
                verbatim = i > 0 and text[i - 1] == "@"  # C# @"..." (no escapes, "" is a quote)
                j = i + 1
                while j < n:
                    if verbatim and text.startswith('""', j):
                        j += 2
                    elif text[j] == '"' or (text[j] == "\n" and not verbatim):
                        break
                    else:
                        j += 2 if (text[j] == "\\" and not verbatim) else 1
                i = j + 1
            elif ch == "'" and self.char_literals:
                m = re.match(r"'(?:\\u[0-9a-fA-F]{4}|\\.|[^\\'\n])'", text[i : i + 8])
                i += len(m.group(0)) if m else 1
            else:
                if ch in "{};":
                    out.append((i, ch))
                i += 1
        return out


# ---------------------------------------------------------------------------------------------
# javatuples: a compatible implementation of the classes MultiPL-E's Java prompts import
# (org.javatuples, javatuples 1.2's API: with/fromArray/fromCollection/fromIterable, getValueN,
# setAtN, add/addAtN, removeFromN, equals/hashCode/compareTo, toString as "[a, b]").

TUPLE_NAMES = ("Unit", "Pair", "Triplet", "Quartet", "Quintet", "Sextet", "Septet", "Octet", "Ennead", "Decade")
_TYPE_VARS = "ABCDEFGHIJ"

_TUPLE_BASE = """package org.javatuples;
import java.util.*;
public abstract class Tuple implements Iterable<Object>, java.io.Serializable, Comparable<Tuple> {
    private static final long serialVersionUID = 1L;
    private final Object[] values;
    protected Tuple(final Object... values) { this.values = values; }
    public abstract int getSize();
    public final Object getValue(final int pos) {
        if (pos < 0 || pos >= values.length) throw new IllegalArgumentException("Cannot retrieve position " + pos + " in " + getClass().getSimpleName() + ". Positions for this class start with 0 and end with " + (values.length - 1));
        return values[pos];
    }
    public final Iterator<Object> iterator() { return toList().iterator(); }
    public final boolean contains(final Object value) { return Arrays.asList(values).contains(value); }
    public final boolean containsAll(final Collection<?> collection) { return Arrays.asList(values).containsAll(collection); }
    public final boolean containsAll(final Object... vs) { return Arrays.asList(values).containsAll(Arrays.asList(vs)); }
    public final int indexOf(final Object value) { return Arrays.asList(values).indexOf(value); }
    public final int lastIndexOf(final Object value) { return Arrays.asList(values).lastIndexOf(value); }
    public final List<Object> toList() { return Collections.unmodifiableList(new ArrayList<Object>(Arrays.asList(values))); }
    public final Object[] toArray() { return values.clone(); }
    @Override public final String toString() { return Arrays.asList(values).toString(); }
    @Override public final int hashCode() { return 31 + Arrays.hashCode(values); }
    @Override public final boolean equals(final Object obj) {
        if (this == obj) return true;
        if (obj == null || getClass() != obj.getClass()) return false;
        return Arrays.equals(values, ((Tuple) obj).values);
    }
    @SuppressWarnings({"unchecked", "rawtypes"})
    public int compareTo(final Tuple o) {
        final int n = Math.min(values.length, o.values.length);
        for (int i = 0; i < n; i++) {
            final int c = ((Comparable) values[i]).compareTo(o.values[i]);
            if (c != 0) return c;
        }
        return Integer.compare(values.length, o.values.length);
    }
    static <X> List<X> take(final Iterable<X> iterable, final int index, final int size, final String what) {
        if (iterable == null) throw new IllegalArgumentException("Iterable cannot be null");
        final List<X> out = new ArrayList<X>(size);
        int i = 0;
        for (final X x : iterable) {
            if (i++ < index) continue;
            if (out.size() == size) break;
            out.add(x);
        }
        if (out.size() < size) throw new IllegalArgumentException("Not enough elements for creating a " + what + " (" + size + " needed)");
        return out;
    }
}
"""

_KEY_VALUE = """package org.javatuples;
public final class {name}<A,B> extends Tuple {{
    private static final long serialVersionUID = 1L;
    private final A {a};
    private final B {b};
    public {name}(final A {a}, final B {b}) {{ super({a}, {b}); this.{a} = {a}; this.{b} = {b}; }}
    public static <A,B> {name}<A,B> with(final A {a}, final B {b}) {{ return new {name}<A,B>({a}, {b}); }}
    public static <X> {name}<X,X> fromArray(final X[] array) {{
        if (array == null || array.length != 2) throw new IllegalArgumentException("Array must have exactly 2 elements in order to create a {name}");
        return new {name}<X,X>(array[0], array[1]);
    }}
    public static <X> {name}<X,X> fromCollection(final java.util.Collection<X> collection) {{ return fromIterable(collection); }}
    public static <X> {name}<X,X> fromIterable(final Iterable<X> iterable) {{ return fromIterable(iterable, 0); }}
    public static <X> {name}<X,X> fromIterable(final Iterable<X> iterable, final int index) {{
        final java.util.List<X> l = Tuple.take(iterable, index, 2, "{name}"); return new {name}<X,X>(l.get(0), l.get(1));
    }}
    public int getSize() {{ return 2; }}
    public A get{A}() {{ return {a}; }}
    public B get{B}() {{ return {b}; }}
    public <X> {name}<X,B> set{A}(final X {a}) {{ return new {name}<X,B>({a}, this.{b}); }}
    public <Y> {name}<A,Y> set{B}(final Y {b}) {{ return new {name}<A,Y>(this.{a}, {b}); }}
}}
"""


def _tuple_class(n: int) -> str:
    name = TUPLE_NAMES[n - 1]
    tv = list(_TYPE_VARS[:n])
    gen = f"<{','.join(tv)}>"
    same = f"<{','.join(['X'] * n)}>"
    params = ", ".join(f"final {t} value{i}" for i, t in enumerate(tv))
    args = ", ".join(f"value{i}" for i in range(n))
    from_list = ", ".join(f"l.get({i})" for i in range(n))
    out = [
        "package org.javatuples;\nimport java.util.*;\n",
        f"public final class {name}{gen} extends Tuple {{\n",
        "    private static final long serialVersionUID = 1L;\n",
        f"    private static final int SIZE = {n};\n",
        *(f"    private final {t} val{i};\n" for i, t in enumerate(tv)),
        f"    public {name}({params}) {{ super({args}); {' '.join(f'this.val{i} = value{i};' for i in range(n))} }}\n",
        f"    public static {gen} {name}{gen} with({params}) {{ return new {name}{gen}({args}); }}\n",
        f"    public static <X> {name}{same} fromArray(final X[] array) {{\n"
        f'        if (array == null) throw new IllegalArgumentException("Array cannot be null");\n'
        f'        if (array.length != SIZE) throw new IllegalArgumentException("Array must have exactly {n} elements in order to create a {name}. Size is " + array.length);\n'
        f"        final List<X> l = Arrays.asList(array); return new {name}{same}({from_list});\n    }}\n",
        f"    public static <X> {name}{same} fromCollection(final Collection<X> collection) {{\n"
        f'        if (collection == null) throw new IllegalArgumentException("Collection cannot be null");\n'
        f'        if (collection.size() != SIZE) throw new IllegalArgumentException("Collection must have exactly {n} elements in order to create a {name}. Size is " + collection.size());\n'
        f"        final List<X> l = new ArrayList<X>(collection); return new {name}{same}({from_list});\n    }}\n",
        f"    public static <X> {name}{same} fromIterable(final Iterable<X> iterable) {{ return fromIterable(iterable, 0); }}\n",
        f"    public static <X> {name}{same} fromIterable(final Iterable<X> iterable, final int index) {{\n"
        f'        final List<X> l = Tuple.take(iterable, index, SIZE, "{name}"); return new {name}{same}({from_list});\n    }}\n',
        "    public int getSize() { return SIZE; }\n",
        *(f"    public {t} getValue{i}() {{ return val{i}; }}\n" for i, t in enumerate(tv)),
    ]
    if n == 2:  # Pair: also the IValueKey/IValueLabel-style accessors some code uses
        out.append("    public A getKey() { return val0; }\n    public B getValue() { return val1; }\n")
    for i in range(n):
        ntv = ["X" if j == i else tv[j] for j in range(n)]
        a = ", ".join("value" if j == i else f"val{j}" for j in range(n))
        out.append(f"    public <X> {name}<{','.join(ntv)}> setAt{i}(final X value) {{ return new {name}<{','.join(ntv)}>({a}); }}\n")
    if n > 1:
        small = TUPLE_NAMES[n - 2]
        for i in range(n):
            rtv = [tv[j] for j in range(n) if j != i]
            a = ", ".join(f"val{j}" for j in range(n) if j != i)
            out.append(f"    public {small}<{','.join(rtv)}> removeFrom{i}() {{ return new {small}<{','.join(rtv)}>({a}); }}\n")
    for k in range(1, len(TUPLE_NAMES) + 1 - n):
        big = TUPLE_NAMES[n + k - 1]
        xv = [f"X{j}" for j in range(k)]
        xp = ", ".join(f"final X{j} value{j}" for j in range(k))
        for pos in range(n + 1):
            ntv = tv[:pos] + xv + tv[pos:]
            meth = "add" if pos == n else f"addAt{pos}"
            vals = [f"val{j}" for j in range(pos)] + [f"value{j}" for j in range(k)] + [f"val{j}" for j in range(pos, n)]
            from_tuple = [f"val{j}" for j in range(pos)] + [f"tuple.getValue{j}()" for j in range(k)] + [f"val{j}" for j in range(pos, n)]
            generic = f"<{','.join(xv)}> {big}<{','.join(ntv)}>"
            out.append(f"    public {generic} {meth}({xp}) {{ return new {big}<{','.join(ntv)}>({', '.join(vals)}); }}\n")
            out.append(f"    public {generic} {meth}(final {TUPLE_NAMES[k - 1]}<{','.join(xv)}> tuple) {{ return new {big}<{','.join(ntv)}>({', '.join(from_tuple)}); }}\n")
    out.append("}\n")
    return "".join(out)


@functools.cache
def javatuples_sources() -> dict[str, str]:
    """org/javatuples/*.java of the compatible implementation."""
    files = {"org/javatuples/Tuple.java": _TUPLE_BASE}
    for n in range(1, len(TUPLE_NAMES) + 1):
        files[f"org/javatuples/{TUPLE_NAMES[n - 1]}.java"] = _tuple_class(n)
    files["org/javatuples/KeyValue.java"] = _KEY_VALUE.format(name="KeyValue", a="key", b="value", A="Key", B="Value")
    files["org/javatuples/LabelValue.java"] = _KEY_VALUE.format(name="LabelValue", a="label", b="value", A="Label", B="Value")
    return files


# A program like the ones javac compiles here, to record which of its classes the CDS archive holds.
_CDS_SAMPLE = """import java.util.*;
import java.util.function.*;
import java.util.stream.*;
import java.math.*;
import org.javatuples.*;
class Problem {
    interface Shape { double area(); }
    record Circle(double r) implements Shape { public double area() { return Math.PI * r * r; } }
    enum Color { RED, GREEN }
    public static Pair<Long, Long> sumProduct(ArrayList<Long> numbers) {
        long sum = 0, product = 1;
        for (long n : numbers) { sum += n; product *= n; }
        return Pair.with(sum, product);
    }
    public static ArrayList<String> words(String s) {
        StringBuilder sb = new StringBuilder();
        Map<Character, Integer> counts = new HashMap<>();
        for (char c : s.toCharArray()) { counts.merge(c, 1, Integer::sum); sb.append(Character.toUpperCase(c)); }
        List<String> parts = Arrays.stream(s.split("\\\\s+")).filter(w -> !w.isEmpty()).map(String::toLowerCase).sorted(Comparator.reverseOrder()).collect(Collectors.toList());
        Optional<String> first = parts.stream().findFirst();
        switch (parts.size()) { case 0: return new ArrayList<String>(); default: break; }
        String t = first.orElse("") + String.format("%d", counts.size()) + (s.length() > 2 ? "y" : "n");
        try { Integer.parseInt(t); } catch (NumberFormatException e) { t = t.trim(); }
        BigInteger big = BigInteger.valueOf(2).pow(70);
        Function<Integer, Integer> twice = x -> x * 2;
        int[] arr = new int[] {3, 1, 2};
        Arrays.sort(arr);
        var result = new ArrayList<String>(parts);
        result.add(t + big + twice.apply(arr[0]) + new Circle(1.0).area() + Color.RED);
        return result;
    }
    public static void main(String[] args) {
    assert(sumProduct((new ArrayList<Long>(Arrays.asList((long)1l, (long)2l)))).equals((Pair.with(3l, 2l))));
    assert(words(("a b")).size() == 3);
    }
}
class AssayTestMain {
    public static void main(String[] args) {
        try { Problem.main(args); } catch (AssertionError e) { Runtime.getRuntime().halt(97); }
        System.out.println("done");
    }
}
"""

# glibc gives each new thread a 64 MiB malloc arena, up to 8 per core: on a big machine the JIT's
# threads alone would reserve GiBs of the address space the JVM shares with its heap.
JVM_ENV = {"MALLOC_ARENA_MAX": "2"}

# The compiler's JVM: a small heap, the serial GC and the C1 JIT only (a short-lived program).
JAVAC_JVM = ("-J-Xmx768m", "-J-Xss8m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-J-XX:-UsePerfData")
JAVAC_ARGS = ("-proc:none", "-encoding", "UTF8")


def _build_java_support(work: Path, javac: str, java: str) -> None:
    src = work / "src"
    for rel, text in javatuples_sources().items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    run_host([javac, *JAVAC_JVM, *JAVAC_ARGS, "-nowarn", "-d", str(work / "javatuples"), *sorted(str(src / rel) for rel in javatuples_sources())], work)
    shutil.rmtree(src)
    sample = work / "sample"
    sample.mkdir()
    (sample / "Problem.java").write_text(_CDS_SAMPLE)
    argv = [javac, *JAVAC_JVM, "{cds}", *JAVAC_ARGS, "-cp", str(work / "javatuples"), "-d", str(sample / "classes"), "Problem.java"]
    dump_cds(argv, work / "javac.jsa", sample, flag="-J-XX:")
    run_host([java, "-ea", "-cp", f"{sample / 'classes'}:{work / 'javatuples'}", "AssayTestMain"], sample)  # the tuples work
    shutil.rmtree(sample)


class Java(ClassSplicer, BraceLanguage):
    """Java 17 (OpenJDK): javac, then java -ea with a wrapper main that maps AssertionError to ASSERT_EXIT."""

    name = "java"
    display = "Java"
    source = "Problem.java"
    tools = ("javac", "java")
    version_args = ("-version",)
    install_hint = "apt-get install -y openjdk-17-jdk-headless"
    # $ASSAY_JAVAC_CDS: the class-data-sharing flag when the support dir has an archive (else empty).
    build = (
        "{javac} " + " ".join(JAVAC_JVM) + " $ASSAY_JAVAC_CDS " + " ".join(JAVAC_ARGS)
        + ' -cp "$ASSAY_JAVA_SUPPORT/javatuples" -d classes Problem.java'
    )
    # Heap capped by -Xmx (the JVM reserves far more address space than it uses: no ulimit -v).
    run = '{java} -ea -Xmx1g -XX:+UseSerialGC -XX:-UsePerfData -cp "classes:$ASSAY_JAVA_SUPPORT/javatuples" AssayTestMain'
    stub = '    throw new UnsupportedOperationException("stub");\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=4 * GiB, run_memory_bytes=None)
    env: ClassVar[dict[str, str]] = JVM_ENV

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """javac and java, plus the support directory (javatuples, javac's CDS archive) built once."""
        base = super().toolchain()
        javac, java = base.tools["javac"], base.tools["java"]
        jdk = os.path.dirname(os.path.dirname(os.path.realpath(javac)))
        key = digest(base.version, os.path.realpath(javac), file_stamp(os.path.join(jdk, "lib", "modules")),
                     sorted(javatuples_sources().items()), _CDS_SAMPLE, JAVAC_JVM, JAVAC_ARGS)
        try:
            support = support_dir("java", key, lambda work: _build_java_support(work, javac, java))
        except (OSError, subprocess.SubprocessError) as exc:
            raise ToolchainMissing(f"Java: could not build the javatuples support classes with {javac}: {exc}") from None
        archive = support / "javac.jsa"
        cds = f"-J-XX:SharedArchiveFile={archive}" if archive.exists() and not re.search(r"\s", str(archive)) else ""
        env = {**base.env, "ASSAY_JAVA_SUPPORT": str(support), "ASSAY_JAVAC_CDS": cds}
        binds = {*base.ro_binds, str(support), *etc_dirs(jdk)}
        return dataclasses.replace(base, ro_binds=tuple(sorted(binds)), env=env)

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """prompt + completion + tests (whole programs spliced into that shape), then the wrapper main."""
        code, trailer = self.splice(problem, code)
        return code + "\n" + self.wrap_tests(problem.tests.code, marker) + trailer  # type: ignore[union-attr]

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests unchanged; a second class's main runs Problem.main: AssertionError -> ASSERT_EXIT, then the marker."""
        return tests + "\n" + JAVA_RUNNER.replace("@MARKER@", marker).replace("@EXIT@", str(ASSERT_EXIT))


JAVA_RUNNER = """class AssayTestMain {
    public static void main(String[] args) throws Throwable {
        try {
            Problem.main(args);
        } catch (AssertionError e) {
            e.printStackTrace();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(@EXIT@);
        }
        System.out.println();
        System.out.println("@MARKER@");
        System.out.flush();
    }
}
"""
