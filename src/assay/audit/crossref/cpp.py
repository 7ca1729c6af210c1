"""C++: HumanEval-X's `vector<int> f(vector<int>)` (int, float, vector, map<char,int>...) in a namespace of its own;
MultiPL-E's `std::vector<long> f(std::vector<long>)` (long, float, tuples, optionals) forwards to it.

The program, as a chat model would write it: HumanEval-X's `#include`s (hoisted), its declaration and
canonical solution inside `namespace assay_hx_solution { using namespace std; ... }` (so its names
cannot clash with the entry point or the harness), a generic recursive conversion (`assay_hx::cv<To>(from)`:
numbers by static_cast, containers element by element, a vector to a tuple and back, a char to a
string, an optional around any value) and a function-traits `call` that converts each argument to the
parameter type of HumanEval-X's function; then MultiPL-E's signature line with a one-line body.

Where HumanEval-X's return type cannot say None (MultiPL-E's `std::optional`), it returns a sentinel
(`""`, -1, -32768, 0 or "None", as its own tests check): the wrapper maps that sentinel to std::nullopt.
HumanEval-X's `boost::any` (not installed here) is given as std::any, which has the same interface; its
OpenSSL MD5 calls (built with -lcrypto there, nothing linked here) are bound to libcrypto at run time.
"""

from __future__ import annotations

import re
from typing import Any

from assay.problems import Problem

# HumanEval-X's sentinel for None, where MultiPL-E's result is an optional (its own tests assert these values).
SENTINELS = {"12": '""', "90": "-1", "128": "-32768", "162": '"None"'}

# Results HumanEval-X writes in a shape of its own: a C++ statement using `assay_r` (its result).
CUSTOM = {
    # vector<int>{max negative, min positive}, 0 where there is none
    "136": "return std::make_tuple(assay_r[0] == 0 ? std::optional<long>() : std::optional<long>(assay_r[0]),"
           " assay_r[1] == 0 ? std::optional<long>() : std::optional<long>(assay_r[1]));",
}

BOOST_SHIM = "#include <any>\nnamespace boost { using std::any; using std::any_cast; using std::bad_any_cast; }\n"

# HumanEval-X's string_to_md5 calls OpenSSL's MD5_Init/MD5_Update/MD5_Final and is built with -lcrypto; the build
# here (MultiPL-E's: `g++ -std=c++17 -o main main.cpp`) links no library. OpenSSL's header stays, and its three
# functions are bound at run time to the same libcrypto (dlopen: in glibc itself), so the code runs unchanged.
OPENSSL_MD5_SHIM = r"""#include <openssl/md5.h>
#include <dlfcn.h>
#include <cstddef>
#include <stdexcept>
namespace assay_hx_crypto {
template <class F> F bind(const char* name) {
    static void* lib = [] {
        void* h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
        return h ? h : dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
    }();
    void* f = lib ? dlsym(lib, name) : nullptr;
    if (f == nullptr) throw std::runtime_error(std::string("adapter: libcrypto's ") + name + " not found");
    return reinterpret_cast<F>(f);
}
}  // namespace assay_hx_crypto
extern "C" int MD5_Init(MD5_CTX* c) { return assay_hx_crypto::bind<int (*)(MD5_CTX*)>("MD5_Init")(c); }
extern "C" int MD5_Update(MD5_CTX* c, const void* data, size_t len) {
    return assay_hx_crypto::bind<int (*)(MD5_CTX*, const void*, size_t)>("MD5_Update")(c, data, len);
}
extern "C" int MD5_Final(unsigned char* md, MD5_CTX* c) { return assay_hx_crypto::bind<int (*)(unsigned char*, MD5_CTX*)>("MD5_Final")(md, c); }
"""

CONVERT = r"""
#include <any>
#include <list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
namespace assay_hx {
template <class T> struct tag {};
template <class To, class From> To cv(const From& x);
template <class To, class From, std::enable_if_t<std::is_arithmetic<To>::value && std::is_arithmetic<From>::value, int> = 0>
To conv(tag<To>, const From& x) { return static_cast<To>(x); }
inline std::string conv(tag<std::string>, char c) { return std::string(1, c); }
inline std::string conv(tag<std::string>, const char* s) { return std::string(s); }
inline bool conv(tag<bool>, const std::string& s) { return s == "True" || s == "true"; }
template <class T, class F> std::vector<T> conv(tag<std::vector<T>>, const std::vector<F>& x) {
    std::vector<T> out;
    out.reserve(x.size());
    for (const auto& item : x) out.push_back(cv<T>(item));
    return out;
}
template <class T, class F> std::vector<T> conv(tag<std::vector<T>>, const std::list<F>& x) {
    std::vector<T> out;
    for (const auto& item : x) out.push_back(cv<T>(item));
    return out;
}
template <class T, class F> std::list<T> conv(tag<std::list<T>>, const std::vector<F>& x) {
    std::list<T> out;
    for (const auto& item : x) out.push_back(cv<T>(item));
    return out;
}
template <class T, class... F> std::vector<T> conv(tag<std::vector<T>>, const std::tuple<F...>& x) {
    return std::apply([](const auto&... item) { return std::vector<T>{cv<T>(item)...}; }, x);
}
template <class... T, class F, std::size_t... I> std::tuple<T...> assay_tuple(const std::vector<F>& x, std::index_sequence<I...>) {
    return std::tuple<T...>(cv<T>(x[I])...);
}
template <class... T, class F> std::tuple<T...> conv(tag<std::tuple<T...>>, const std::vector<F>& x) {
    if (x.size() != sizeof...(T)) throw std::runtime_error("adapter: " + std::to_string(x.size()) + " items for a tuple of " + std::to_string(sizeof...(T)));
    return assay_tuple<T...>(x, std::index_sequence_for<T...>{});
}
template <class... T, class... F, std::size_t... I> std::tuple<T...> assay_tuple2(const std::tuple<F...>& x, std::index_sequence<I...>) {
    return std::tuple<T...>(cv<T>(std::get<I>(x))...);
}
template <class... T, class... F> std::tuple<T...> conv(tag<std::tuple<T...>>, const std::tuple<F...>& x) {
    return assay_tuple2<T...>(x, std::index_sequence_for<T...>{});
}
template <class A, class B, class F, class G> std::tuple<A, B> conv(tag<std::tuple<A, B>>, const std::pair<F, G>& x) {
    return std::tuple<A, B>(cv<A>(x.first), cv<B>(x.second));
}
template <class K, class V, class F, class G> std::map<K, V> conv(tag<std::map<K, V>>, const std::map<F, G>& x) {
    std::map<K, V> out;
    for (const auto& kv : x) out.emplace(cv<K>(kv.first), cv<V>(kv.second));
    return out;
}
template <class T, class F> std::optional<T> conv(tag<std::optional<T>>, const F& x) { return std::optional<T>(cv<T>(x)); }
template <class T, class F> std::optional<T> conv(tag<std::optional<T>>, const std::optional<F>& x) {
    return x ? std::optional<T>(cv<T>(*x)) : std::optional<T>();
}
// MultiPL-E's literals put ints in a std::any as long; HumanEval-X's code looks for int.
inline std::any conv(tag<std::any>, const std::any& x) {
    if (const long* p = std::any_cast<long>(&x)) return std::any(static_cast<int>(*p));
    return x;
}
template <class To, class From> To cv(const From& x) {
    if constexpr (std::is_same<To, From>::value && !std::is_same<To, std::any>::value) return x;
    else return conv(tag<To>{}, x);
}
template <class R, class... P, class... A> R call(R (*f)(P...), const A&... a) {
    return f(cv<typename std::decay<P>::type>(a)...);
}
}  // namespace assay_hx
"""


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split at separators outside <>, () and []."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def signature_parts(signature: str, entry: str) -> tuple[str, list[str]]:
    """(return type, parameter names) of a C++ signature line `RET entry(T a, U b) {`."""
    at = re.search(rf"\b{re.escape(entry)}\s*\(", signature)
    assert at, signature
    ret = signature[: at.start()].strip()
    inner = signature[at.end() : signature.rindex(")")]
    names = [re.findall(r"\w+", p)[-1] for p in split_top(inner)]
    return ret, names


def hx_name(declaration: str) -> str:
    """The name of HumanEval-X's function: its declaration's last line `T name(...){`."""
    last = [line for line in declaration.splitlines() if line.strip()][-1]
    return re.search(r"(\w+)\s*\(", last).group(1)  # type: ignore[union-attr]


def adapt(problem: Problem, row: dict[str, Any]) -> str:
    """HumanEval-X's solution in a namespace, the conversions, then MultiPL-E's function forwarding to it."""
    number = row["task_id"].split("/")[1]
    includes, body = [], []
    # HumanEval-X's signature line can equal MultiPL-E's but for spaces: the splice would take it for the entry point's.
    declaration = re.sub(r"\)\s*\{\s*$", ")\n{", row["declaration"].rstrip()) + "\n"
    for line in (declaration + row["canonical_solution"]).splitlines():
        stripped = line.strip()
        if stripped.startswith("#include"):
            if "boost/any.hpp" in stripped:
                includes.append(BOOST_SHIM)
            elif "openssl/md5.h" in stripped:
                includes.append(OPENSSL_MD5_SHIM)
            elif stripped not in includes:
                includes.append(stripped)
        elif stripped != "using namespace std;":
            body.append(line)
    name = hx_name(row["declaration"])
    signature = problem.prompt.rstrip().splitlines()[-1]
    ret, params = signature_parts(signature, problem.entry_point)
    call = f"assay_hx::call(&assay_hx_solution::{name}{''.join(', ' + p for p in params)})"
    if number in CUSTOM:
        wrapper = f"    auto assay_r = {call};\n    {CUSTOM[number]}\n"
    elif number in SENTINELS:
        wrapper = (f"    auto assay_r = {call};\n    if (assay_r == {SENTINELS[number]}) return std::nullopt;\n"
                   f"    return assay_hx::cv<{ret}>(assay_r);\n")
    else:
        wrapper = f"    return assay_hx::cv<{ret}>({call});\n"
    return ("\n".join(includes) + "\n\nnamespace assay_hx_solution {\nusing namespace std;\n" + "\n".join(body)
            + "\n}  // namespace assay_hx_solution\n" + CONVERT + "\n" + signature + "\n" + wrapper + "}\n")
