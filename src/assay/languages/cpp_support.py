"""C++'s prebuilt parts: the precompiled header of <bits/stdc++.h>, and the case harness (its
declarations precompiled into a case header, its functions compiled once into an object file that
case builds link). Built outside the sandbox, once per g++ version, into support slots
(assay.languages.support); `assay.languages.cpp` says how builds use them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from assay.languages.base import Toolchain
from assay.languages.support import build_once, digest, run_host, support_slot, switched_off

STD = "-std=c++17"
PCH_HEADER = "assay-pch.h"
PCH_TEXT = "#include <assert.h>\n#include <bits/stdc++.h>\n"
PCH_ENV = "ASSAY_CPP_PCH"  # in the sandbox: the header to force-include; on the host: "0" turns it off
CASES_HEADER = "assay-cases.h"
CASES_ENV = "ASSAY_CPP_CASES"  # in the sandbox: the case header (its object file is the same name + .o)
CASES_MARK = "assay-case-header"  # a file of a case build's own: it force-includes the case header

CASE_DECLARATIONS = r"""
#include <unistd.h>
#include <any>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
void assay_put(std::string& o, bool v);
void assay_put_signed(std::string& o, long long v);
void assay_put_unsigned(std::string& o, unsigned long long v);
void assay_put_double(std::string& o, double v);
void assay_put(std::string& o, const std::string& v);
void assay_put(std::string& o, const char* v);
void assay_put(std::string& o, std::nullopt_t);
void assay_put_any(std::string& o, const std::any& v);
void assay_emit(const std::string& line);
void assay_e(long i);
template <class T> static typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value>::type assay_put(std::string& o, T v);
template <class T> static typename std::enable_if<std::is_floating_point<T>::value>::type assay_put(std::string& o, T v);
template <class T> static typename std::enable_if<std::is_union<T>::value>::type assay_put(std::string& o, const T& v);
// Exactly a std::any (a template: nothing converts to it, as anything would to a std::any parameter).
template <class T> static typename std::enable_if<std::is_same<T, std::any>::value>::type assay_put(std::string& o, const T& v);
template <class T> static void assay_put(std::string& o, const std::optional<T>& v);
template <class T, class A> static void assay_put(std::string& o, const std::vector<T, A>& v);
template <class T, std::size_t N> static void assay_put(std::string& o, const std::array<T, N>& v);
template <class T, class C, class A> static void assay_put(std::string& o, const std::set<T, C, A>& v);
template <class T, class H, class E, class A> static void assay_put(std::string& o, const std::unordered_set<T, H, E, A>& v);
template <class K, class V, class C, class A> static void assay_put(std::string& o, const std::map<K, V, C, A>& v);
template <class K, class V, class H, class E, class A> static void assay_put(std::string& o, const std::unordered_map<K, V, H, E, A>& v);
template <class A, class B> static void assay_put(std::string& o, const std::pair<A, B>& v);
template <class... T> static void assay_put(std::string& o, const std::tuple<T...>& v);
template <class... T> static void assay_put(std::string& o, const std::variant<T...>& v);

template <class T> static typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value>::type assay_put(std::string& o, T v) {
    if (std::is_signed<T>::value) assay_put_signed(o, static_cast<long long>(v));
    else assay_put_unsigned(o, static_cast<unsigned long long>(v));
}
template <class T> static typename std::enable_if<std::is_floating_point<T>::value>::type assay_put(std::string& o, T v) {
    assay_put_double(o, static_cast<double>(v));  // a float's value exactly: %.17g round-trips a double
}
template <class T> static typename std::enable_if<std::is_union<T>::value>::type assay_put(std::string&, const T&) {
    throw std::runtime_error("a union's value cannot be read (C++ unions have no tag)");
}
template <class T> static typename std::enable_if<std::is_same<T, std::any>::value>::type assay_put(std::string& o, const T& v) {
    assay_put_any(o, v);
}
template <class T> static void assay_put(std::string& o, const std::optional<T>& v) {
    if (v.has_value()) assay_put(o, *v); else o += "null";
}
template <class R> static void assay_items(std::string& o, const R& items) {
    o += '[';
    bool first = true;
    for (const auto& item : items) {
        if (!first) o += ',';
        first = false;
        assay_put(o, item);
    }
    o += ']';
}
template <class T, class A> static void assay_put(std::string& o, const std::vector<T, A>& v) { assay_items(o, v); }
template <class T, std::size_t N> static void assay_put(std::string& o, const std::array<T, N>& v) { assay_items(o, v); }
template <class T, class C, class A> static void assay_put(std::string& o, const std::set<T, C, A>& v) { assay_items(o, v); }
template <class T, class H, class E, class A> static void assay_put(std::string& o, const std::unordered_set<T, H, E, A>& v) { assay_items(o, v); }
template <class M> static void assay_pairs(std::string& o, const M& m) {
    o += '[';
    bool first = true;
    for (const auto& kv : m) {
        if (!first) o += ',';
        first = false;
        o += '[';
        assay_put(o, kv.first);
        o += ',';
        assay_put(o, kv.second);
        o += ']';
    }
    o += ']';
}
template <class K, class V, class C, class A> static void assay_put(std::string& o, const std::map<K, V, C, A>& v) { assay_pairs(o, v); }
template <class K, class V, class H, class E, class A> static void assay_put(std::string& o, const std::unordered_map<K, V, H, E, A>& v) { assay_pairs(o, v); }
template <class A, class B> static void assay_put(std::string& o, const std::pair<A, B>& v) {
    o += '[';
    assay_put(o, v.first);
    o += ',';
    assay_put(o, v.second);
    o += ']';
}
template <class Tuple, std::size_t... I> static void assay_tuple(std::string& o, const Tuple& t, std::index_sequence<I...>) {
    o += '[';
    ((o += (I == 0 ? "" : ","), assay_put(o, std::get<I>(t))), ...);
    o += ']';
}
template <class... T> static void assay_put(std::string& o, const std::tuple<T...>& v) { assay_tuple(o, v, std::index_sequence_for<T...>{}); }
template <class... T> static void assay_put(std::string& o, const std::variant<T...>& v) {
    std::visit([&o](const auto& x) { assay_put(o, x); }, v);  // the alternative it holds (a union with a tag)
}
template <class T> static void assay_v(long i, const T& v) {
    std::string line = std::to_string(i) + " v ";
    assay_put(line, v);
    line += '\n';
    assay_emit(line);
}
"""

CASE_FUNCTIONS = r"""
void assay_put(std::string& o, bool v) { o += v ? "true" : "false"; }
void assay_put_signed(std::string& o, long long v) { o += std::to_string(v); }
void assay_put_unsigned(std::string& o, unsigned long long v) { o += std::to_string(v); }
void assay_put_double(std::string& o, double d) {
    if (std::isnan(d)) { o += "NaN"; return; }
    if (std::isinf(d)) { o += d > 0 ? "Infinity" : "-Infinity"; return; }
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", d);
    o += buffer;
}
static void assay_put_chars(std::string& o, const char* s, std::size_t n) {
    o += '"';
    for (std::size_t i = 0; i < n; i++) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') { o += '\\'; o += static_cast<char>(c); }
        else if (c < 0x20 || c == 0x7f) { char e[8]; std::snprintf(e, sizeof e, "\\u%04x", c); o += e; }
        else o += static_cast<char>(c);
    }
    o += '"';
}
void assay_put(std::string& o, const std::string& v) { assay_put_chars(o, v.data(), v.size()); }
void assay_put(std::string& o, const char* v) {
    if (v == nullptr) { o += "null"; return; }
    assay_put_chars(o, v, std::strlen(v));
}
void assay_put(std::string& o, std::nullopt_t) { o += "null"; }
// What MultiPL-E's literals put in a std::any (ints as long or int, floats, strings as const char*), and lists of those.
template <class T> static bool assay_any_as(std::string& o, const std::any& v) {
    const T* p = std::any_cast<T>(&v);
    if (p != nullptr) assay_put(o, *p);
    return p != nullptr;
}
void assay_put_any(std::string& o, const std::any& v) {
    if (!v.has_value()) { o += "null"; return; }
    if (assay_any_as<long>(o, v) || assay_any_as<int>(o, v) || assay_any_as<long long>(o, v) || assay_any_as<unsigned long>(o, v)
        || assay_any_as<unsigned>(o, v) || assay_any_as<bool>(o, v) || assay_any_as<char>(o, v) || assay_any_as<float>(o, v)
        || assay_any_as<double>(o, v) || assay_any_as<std::string>(o, v) || assay_any_as<const char*>(o, v) || assay_any_as<char*>(o, v)
        || assay_any_as<std::nullopt_t>(o, v) || assay_any_as<std::vector<std::any>>(o, v) || assay_any_as<std::vector<long>>(o, v)
        || assay_any_as<std::vector<float>>(o, v) || assay_any_as<std::vector<std::string>>(o, v) || assay_any_as<std::vector<bool>>(o, v)
        || assay_any_as<std::vector<std::vector<long>>>(o, v) || assay_any_as<std::vector<std::vector<std::any>>>(o, v)
        || assay_any_as<std::map<long, long>>(o, v) || assay_any_as<std::map<std::string, long>>(o, v)) {
        return;
    }
    throw std::runtime_error(std::string("a std::any holding a value of type ") + v.type().name());
}
void assay_emit(const std::string& line) {
    const char* p = line.data();
    std::size_t n = line.size();
    while (n > 0) {
        ssize_t w = ::write(3, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) std::_Exit(125);  // the channel is gone: the records so far stand
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}
void assay_e(long i) {  // in a catch block: the exception in flight
    std::string m = "an exception that is not a std::exception";
    try { throw; }
    catch (const std::exception& e) { m = e.what(); }
    catch (const std::string& s) { m = s; }
    catch (const char* s) { m = s ? s : "a null C string"; }
    catch (...) {}
    for (char& c : m) if (c == '\n' || c == '\r') c = ' ';
    if (m.size() > 300) m.resize(300);
    assay_emit(std::to_string(i) + " e " + m + "\n");
}
"""
CASE_HARNESS = CASE_DECLARATIONS + CASE_FUNCTIONS  # in the sample's translation unit, where there is no case header


def pch_dir(toolchain: Toolchain) -> Path | None:
    """The support slot cpp-pch-<g++ and flags>, created (empty) now; None when turned off or not creatable."""
    if switched_off(PCH_ENV):
        return None
    return support_slot("cpp-pch", digest(os.path.realpath(toolchain.tools["g++"]), toolchain.version, STD, PCH_TEXT))


def build_pch(gpp: str, header: Path) -> bool:
    """Precompile the header (trusted: system headers only) next to it; False when it could not be built."""
    def build(gch: Path) -> None:
        if not header.exists() or header.read_text() != PCH_TEXT:
            header.write_text(PCH_TEXT)
            os.chmod(header, 0o644)
        run_host([gpp, STD, "-x", "c++-header", str(header), "-o", str(gch)], gch.parent, timeout=600)

    return build_once(header.with_name(header.name + ".gch"), build)


def cases_dir(toolchain: Toolchain) -> Path | None:
    """The support slot cpp-cases-<g++, flags and harness> for the case header and the harness's object
    file, created (empty) now; None when the precompiled header is turned off or it is not creatable."""
    if switched_off(PCH_ENV):
        return None
    key = digest(os.path.realpath(toolchain.tools["g++"]), toolchain.version, STD, PCH_TEXT, CASE_DECLARATIONS, CASE_FUNCTIONS)
    return support_slot("cpp-cases", key)


def build_case_header(gpp: str, header: Path) -> bool:
    """The case header (PCH_TEXT and CASE_DECLARATIONS), precompiled, and CASE_FUNCTIONS compiled
    against it into <header>.o; False when either could not be built (case builds then carry the
    whole harness)."""
    text = PCH_TEXT + CASE_DECLARATIONS

    def write_header() -> None:
        if not header.exists() or header.read_text() != text:
            header.write_text(text)
            os.chmod(header, 0o644)

    def build_gch(gch: Path) -> None:
        write_header()
        run_host([gpp, STD, "-x", "c++-header", str(header), "-o", str(gch)], gch.parent, timeout=600)

    def build_object(obj: Path) -> None:
        write_header()
        unit = obj.with_name("assay-cases.cpp")
        unit.write_text(CASE_FUNCTIONS)
        try:
            run_host([gpp, STD, "-O1", "-include", str(header), "-c", str(unit), "-o", str(obj)], obj.parent, timeout=600)
        finally:
            unit.unlink(missing_ok=True)

    def probe_gold(mark: Path) -> None:  # a program with the harness, linked by gold, must run and report
        probe = mark.with_name("probe")
        probe.mkdir()
        try:
            (probe / "main.cpp").write_text('signed main() { assay_v(0, std::vector<long>{1, -2}); assay_emit("done 1\\n"); return 0; }\n')
            run_host([gpp, STD, "-include", str(header), "-fuse-ld=gold", "-o", "main", "main.cpp", str(header.with_name(header.name + ".o"))], probe)
            run_host(["/bin/sh", "-c", "./main 3>channel"], probe, timeout=60)
            channel = (probe / "channel").read_bytes()
            if channel != b"0 v [1,-2]\ndone 1\n":
                raise subprocess.SubprocessError(f"the gold-linked probe reported {channel!r}")
            mark.write_text("")
        finally:
            shutil.rmtree(probe, ignore_errors=True)

    built = build_once(header.with_name(header.name + ".gch"), build_gch) and build_once(header.with_name(header.name + ".o"), build_object)
    if built:
        build_once(header.with_name(header.name + ".gold"), probe_gold)  # only speed depends on it
    return built


def case_header(toolchain: Toolchain) -> str | None:
    """The case header for a case build, where it and its object file are built; else None."""
    header = toolchain.env.get(CASES_ENV)
    if not header:
        return None
    path = Path(header)
    ready = all(p.exists() for p in (path, path.with_name(path.name + ".gch"), path.with_name(path.name + ".o")))
    return header if ready else None
