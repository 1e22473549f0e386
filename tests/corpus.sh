#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# corpus.sh [--limit N] [--jobs N] [--keep] [DIR...] - run elfthp-align over
# the ELF executables and shared libraries of a real system, on copies.
#
# DIRs default to /usr/bin /usr/sbin /usr/lib/x86_64-linux-gnu.  Every
# regular file under them that is an ELF ET_EXEC or ET_DYN file is taken,
# and so is the target of every symbolic link under them that resolves to
# one (that is how /usr/bin/clang reaches /usr/lib/llvm-14/bin/clang and
# how libclang-cpp.so.14 is found).  Each file is copied into a scratch
# directory that mirrors its real path, the links are recreated there, and
# each copy is rewritten in place with the tool ($ELFTHP_ALIGN, default
# ./elfthp-align).  Checks, per file:
#   - exit 0, or exit 2 with a documented refusal (see REFUSALS below); a
#     refused or "nothing to do" copy is byte-identical to the original;
#   - every program header's bytes (readelf -lW offsets, old against new)
#     and every section's bytes (readelf -SW) are unchanged, except the ELF
#     header and the program header table, which are masked; the other
#     program header fields are unchanged; eligible PT_LOADs are congruent;
#   - eu-elflint -q --gnu-ld prints no message for the copy that it does not
#     print for the original (file names normalised).
# Then, with the rewritten copies:
#   - `--version` of gdb, cmake, python3, perl, git, ls, cp, readelf, objdump,
#     clang, gcc, curl, ... (those present) prints the same as the original
#     (the scratch prefix is removed from the output), run with
#     LD_LIBRARY_PATH at the rewritten libraries;
#   - python3 -c 'import ssl', curl --version, and clang compiling and
#     linking a small C file, all with LD_LIBRARY_PATH at the rewritten
#     libraries; LD_DEBUG=libs proves that the rewritten libssl/libcrypto,
#     libcurl and libLLVM/libclang-cpp were the ones loaded;
#   - every rewritten shared library that the system python can dlopen()
#     (ctypes) as it is still dlopen()s after the rewrite.
# Prints counts: files, rewritten, already aligned, nothing eligible,
# refused (by reason), failures; exits 1 on any failure.
#
#   --limit N   a bounded subset: the libraries and programs the load and
#               --version checks use, then an even spread of the rest
#   --jobs N    files processed at once (default: the number of CPUs)
#   --keep      keep the scratch directory (default: removed)
# Environment: TMPDIR (scratch location), ELFTHP_ALIGN.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
TOOL=${ELFTHP_ALIGN:-$ROOT/elfthp-align}

LIMIT=0 JOBS=$(nproc 2>/dev/null || echo 2) KEEP=0
DIRS=()
while [ $# -gt 0 ]; do
    case $1 in
        --limit) LIMIT=${2:?--limit needs a number}; shift 2 ;;
        --limit=*) LIMIT=${1#*=}; shift ;;
        --jobs|-j) JOBS=${2:?--jobs needs a number}; shift 2 ;;
        --jobs=*) JOBS=${1#*=}; shift ;;
        --keep) KEEP=1; shift ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "corpus.sh: unknown option $1" >&2; exit 2 ;;
        *) DIRS+=("$1"); shift ;;
    esac
done
[ ${#DIRS[@]} -gt 0 ] || DIRS=(/usr/bin /usr/sbin /usr/lib/x86_64-linux-gnu)
case "$LIMIT$JOBS" in *[!0-9]*) echo "corpus.sh: --limit and --jobs take numbers" >&2; exit 2 ;; esac
[ -x "$TOOL" ] || { echo "corpus.sh: $TOOL not found (run make)" >&2; exit 2; }
for t in python3 readelf eu-elflint; do
    command -v $t >/dev/null || { echo "corpus.sh: $t not installed" >&2; exit 2; }
done

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-corpus.XXXXXX") || exit 2
if [ "$KEEP" = 1 ]; then
    echo "# scratch directory (kept): $SCRATCH"
else
    trap 'rm -rf "$SCRATCH"' EXIT
fi
trap 'exit 130' INT TERM

read -r -d '' PY <<'PYEOF'
import concurrent.futures as cf
import mmap, os, re, shutil, stat, struct, subprocess, sys, tempfile, time

tool, scratch, limit, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dirs = sys.argv[5:]
FILES = os.path.join(scratch, "files")
t0 = time.time()
TARGET = 0x200000

# Refusals the man page and README document, by reason.
REFUSALS = [
    ("not an ELF file", r"not an ELF file"),
    ("not an executable or shared object", r"not an executable or shared object"),
    ("truncated", r"truncated"),
    ("headers or segments past end of file", r"past end of file"),
    ("sizes overflow", r"overflows"),
    ("overlapping PT_LOADs", r"overlap in the file"),
    ("p_filesz > p_memsz", r"exceeds p_memsz"),
    ("PT_LOAD not page-congruent", r"not congruent modulo the page size"),
    ("p_align not a power of two", r"is not a power of two"),
    ("stripped after a split", r"leaves of a file split by --layout start"),
    ("malformed headers", r"unknown ELF (class|data encoding|version)|e_(ph|sh)entsize .* is wrong|"
                          r"no program headers|PN_XNUM|no PT_LOAD segment|inconsistent"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, **kw)


def elf_type(path):
    try:
        with open(path, "rb") as f:
            h = f.read(20)
    except OSError:
        return None
    if len(h) < 20 or h[:4] != b"\x7fELF" or h[5] not in (1, 2):
        return None
    return struct.unpack("<H" if h[5] == 1 else ">H", h[16:18])[0]


# --- collect the files --------------------------------------------------------
files = {}   # realpath -> True
links = []   # (link path, realpath of its target)
for d in dirs:
    for root, subdirs, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                real = os.path.realpath(p)
                if os.path.isfile(real) and elf_type(real) in (2, 3):
                    links.append((p, real))
                    files[real] = True
            elif stat.S_ISREG(st.st_mode) and elf_type(p) in (2, 3):
                files[os.path.realpath(p)] = True
        # Do not walk into symlinked directories (os.walk does not by default).

VERSION_PROGS = ["gdb", "cmake", "python3", "perl", "git", "ls", "cp", "readelf",
                 "objdump", "clang", "gcc", "ld", "as", "make", "tar", "curl",
                 "openssl", "ssh", "bash", "node"]
KEY_LIBS = ["libssl.so.3", "libcrypto.so.3", "libcurl.so.4", "libLLVM-14.so.1",
            "libclang-cpp.so.14", "libc.so.6", "libstdc++.so.6", "libz.so.1"]


def prog_path(name):
    if name == "python3":
        for c in ("/usr/bin/python3",):
            if os.path.exists(c):
                return os.path.realpath(c)
    for d in ("/usr/bin", "/usr/sbin", "/bin", "/sbin"):
        c = os.path.join(d, name)
        if os.path.exists(c):
            return os.path.realpath(c)
    w = shutil.which(name)
    return os.path.realpath(w) if w else None


def lib_path(name):
    for d in dirs:
        c = os.path.join(d, name)
        if os.path.exists(c):
            return os.path.realpath(c)
    return None


key = []
for n in VERSION_PROGS:
    p = prog_path(n)
    if p and p in files and p not in key:
        key.append(p)
for n in KEY_LIBS:
    p = lib_path(n)
    if p and p in files and p not in key:
        key.append(p)
everything = sorted(files)
if limit and limit < len(everything):
    rest = [p for p in everything if p not in set(key)]
    chosen = key[:limit]
    want = limit - len(chosen)
    if want > 0:
        step = len(rest) / want
        chosen += [rest[int(i * step)] for i in range(want)]
    selected = sorted(set(chosen))
else:
    selected = everything
print("# %d ELF executables and shared libraries under %s; checking %d"
      % (len(everything), " ".join(dirs), len(selected)), flush=True)

# --- per file -----------------------------------------------------------------
phdr_re = re.compile(r"^\s+([A-Z_a-z0-9+]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+"
                     r"(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(.*?)\s*(0x[0-9a-f]+|0)$")
sec_re = re.compile(r"^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s")


def readelf_phdrs(path):
    r = run(["readelf", "-lW", path], env=dict(os.environ, LC_ALL="C"))
    out = []
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        m = phdr_re.match(line)
        if m and not line.strip().startswith("Type"):
            t, o, v, p, fs, ms, fl, al = m.groups()
            out.append(dict(type=t, offset=int(o, 16), vaddr=int(v, 16), paddr=int(p, 16),
                            filesz=int(fs, 16), memsz=int(ms, 16), flags=fl.replace(" ", ""),
                            align=int(al, 16)))
    return r.returncode, out


def readelf_sections(path):
    r = run(["readelf", "-SW", path], env=dict(os.environ, LC_ALL="C"))
    out = []
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        m = sec_re.match(line)
        if m and m.group(1) != "0":
            out.append(dict(idx=int(m.group(1)), name=m.group(2), type=m.group(3),
                            addr=int(m.group(4), 16), offset=int(m.group(5), 16),
                            size=int(m.group(6), 16)))
    return out


def header_mask(path):
    """[(start, end)] of the ELF header and the program header table."""
    with open(path, "rb") as f:
        h = f.read(64)
    le = "<" if h[5] == 1 else ">"
    if h[4] == 2:
        phoff = struct.unpack(le + "Q", h[32:40])[0]
        ehsize, phent, phnum = struct.unpack(le + "HHH", h[52:58])
    else:
        phoff = struct.unpack(le + "I", h[28:32])[0]
        ehsize, phent, phnum = struct.unpack(le + "HHH", h[40:46])
    return [(0, ehsize), (phoff, phoff + phent * phnum)]


def ranges_equal(m1, m2, o1, o2, n, mask):
    """Compare m1[o1:o1+n] with m2[o2:o2+n], skipping mask (file offsets in m1)."""
    pos = 0
    cuts = sorted((max(a, o1) - o1, min(b, o1 + n) - o1) for a, b in mask
                  if a < o1 + n and b > o1)
    for a, b in cuts + [(n, n)]:
        if a > pos:
            step = 1 << 24
            for s in range(pos, a, step):
                e = min(a, s + step)
                if m1[o1 + s:o1 + e] != m2[o2 + s:o2 + e]:
                    return False
        pos = max(pos, b)
    return True


def elflint(path):
    r = run(["eu-elflint", "-q", "--gnu-ld", path])
    text = (r.stdout + r.stderr).decode("utf-8", "replace").replace(path, "FILE")
    return set(l for l in text.splitlines() if l.strip())


def windows(v, fs, a):
    lo = (v + a - 1) // a
    hi = (v + fs) // a
    return max(0, hi - lo)


def check_bytes(orig, new):
    """Return a list of problems (empty when the copy is faithful)."""
    bad = []
    rc1, p1 = readelf_phdrs(orig)
    rc2, p2 = readelf_phdrs(new)
    if rc2 != 0 or not p2:
        return ["readelf -lW cannot read the result (rc %d)" % rc2]
    if len(p1) != len(p2):
        return ["program header count %d -> %d" % (len(p1), len(p2))]
    for i, (a, b) in enumerate(zip(p1, p2)):
        for k in ("type", "vaddr", "paddr", "filesz", "memsz", "flags"):
            if a[k] != b[k]:
                bad.append("phdr %d: %s 0x%x -> 0x%x" % (i, k, a[k], b[k]) if isinstance(a[k], int)
                           else "phdr %d: %s %s -> %s" % (i, k, a[k], b[k]))
        if b["align"] < a["align"] and a["type"] == "LOAD":
            bad.append("phdr %d: p_align lowered" % i)
        if b["type"] == "LOAD":
            m = max(b["align"], 4096)
            if (b["offset"] - b["vaddr"]) % m:
                bad.append("phdr %d: offset 0x%x not congruent to vaddr 0x%x mod 0x%x"
                           % (i, b["offset"], b["vaddr"], m))
            if "W" not in b["flags"] and windows(b["vaddr"], b["filesz"], TARGET) > 0 \
                    and i > 0 and b["offset"] != 0 and (b["offset"] - b["vaddr"]) % TARGET:
                # The first PT_LOAD (at offset 0) may stay incongruent (pinned).
                bad.append("phdr %d: eligible but offset 0x%x not congruent mod 2 MiB" % (i, b["offset"]))
    if bad:
        return bad
    s1, s2 = readelf_sections(orig), readelf_sections(new)
    if [(s["name"], s["type"], s["addr"], s["size"]) for s in s1] != \
            [(s["name"], s["type"], s["addr"], s["size"]) for s in s2]:
        return ["section headers differ beyond sh_offset"]
    mask = header_mask(orig)
    with open(orig, "rb") as f1, open(new, "rb") as f2:
        if os.fstat(f1.fileno()).st_size == 0 or os.fstat(f2.fileno()).st_size == 0:
            return ["empty file"]
        m1 = mmap.mmap(f1.fileno(), 0, prot=mmap.PROT_READ)
        m2 = mmap.mmap(f2.fileno(), 0, prot=mmap.PROT_READ)
        try:
            for i, (a, b) in enumerate(zip(p1, p2)):
                if a["filesz"] == 0:
                    continue
                if b["offset"] + a["filesz"] > len(m2) or a["offset"] + a["filesz"] > len(m1):
                    bad.append("phdr %d: range past end of file" % i)
                elif not ranges_equal(m1, m2, a["offset"], b["offset"], a["filesz"], mask):
                    bad.append("phdr %d (%s) bytes differ (0x%x -> 0x%x, 0x%x bytes)"
                               % (i, a["type"], a["offset"], b["offset"], a["filesz"]))
            for a, b in zip(s1, s2):
                if a["type"] == "NOBITS" or a["size"] == 0:
                    continue
                if b["offset"] + a["size"] > len(m2) or a["offset"] + a["size"] > len(m1):
                    bad.append("section %s: range past end of file" % a["name"])
                elif not ranges_equal(m1, m2, a["offset"], b["offset"], a["size"], mask):
                    bad.append("section [%d] %s bytes differ" % (a["idx"], a["name"]))
        finally:
            m1.close()
            m2.close()
    return bad


def same_bytes(a, b):
    return run(["cmp", "-s", a, b]).returncode == 0


def process(orig):
    """-> (status, detail); status: rewritten, aligned, none, refused:REASON, fail."""
    new = FILES + orig
    try:
        os.makedirs(os.path.dirname(new), exist_ok=True)
        shutil.copy2(orig, new)
    except OSError as e:
        return "fail", "copy: %s" % e
    r = run([tool, new])
    out = r.stdout.decode("utf-8", "replace").strip()
    err = r.stderr.decode("utf-8", "replace").strip()
    if r.returncode == 2:
        msg = err.split(": ", 2)[-1] if err.startswith("elfthp-align: ") else err
        if not err.startswith("elfthp-align: %s: " % new) or "\n" in err:
            return "fail", "refusal message does not name the file: [%s]" % err
        if not same_bytes(orig, new):
            return "fail", "refused but the copy changed: %s" % msg
        for reason, pat in REFUSALS:
            if re.search(pat, msg):
                return "refused:" + reason, msg
        return "fail", "undocumented refusal: %s" % msg
    if r.returncode != 0:
        return "fail", "exit %d: %s %s" % (r.returncode, out, err)
    if err:
        return "fail", "exit 0 but stderr: %s" % err
    if "nothing to do" in out:
        if not same_bytes(orig, new):
            return "fail", "'nothing to do' but the copy changed"
        return ("aligned" if "already aligned" in out else "none"), out
    bad = check_bytes(orig, new)
    lint = elflint(new) - elflint(orig)
    if lint:
        bad.append("new eu-elflint messages: " + " | ".join(sorted(lint)[:3]))
    if bad:
        return "fail", "; ".join(bad[:4])
    return "rewritten", out


results = {}
with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
    futs = {ex.submit(process, p): p for p in selected}
    done = 0
    for fut in cf.as_completed(futs):
        p = futs[fut]
        try:
            results[p] = fut.result()
        except Exception as e:  # a bug here must not hide as a pass
            results[p] = ("fail", "corpus.sh exception: %r" % e)
        done += 1
        st, detail = results[p]
        if st == "fail":
            print("FAIL - %s: %s" % (p, detail), flush=True)
        if done % 200 == 0:
            print("# %d/%d files (%d s)" % (done, len(selected), time.time() - t0), flush=True)

# Recreate the links, so that LD_LIBRARY_PATH finds sonames and symlinked libraries.
for link, real in links:
    if real in results:
        dst = FILES + link
        try:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if not os.path.lexists(dst):
                os.symlink(FILES + real, dst)
        except OSError:
            pass
t_files = time.time() - t0

# --- the rewritten programs and libraries at work -------------------------------------
extra_fail = []
extra_pass = []
libdirs = [FILES + os.path.realpath(d) for d in dirs if "lib" in d]
libdirs = [d for d in libdirs if os.path.isdir(d)]
LDLP = ":".join(libdirs)


def env_new(**kw):
    e = dict(os.environ, LD_LIBRARY_PATH=LDLP, LC_ALL="C")
    e.pop("LD_PRELOAD", None)
    e.update(kw)
    return e


def norm(text):
    return text.replace(FILES, "")


def version_check(name):
    orig = prog_path(name)
    if orig is None or orig not in results:
        return
    st = results[orig][0]
    new = FILES + orig
    # python3 run from a copy must be told where its library is.
    extra = {"PYTHONHOME": "/usr"} if name == "python3" else {}
    cmd = ["bash", "-c", 'exec -a "$0" "$1" --version', name]
    r1 = run(cmd + [orig], env=dict(os.environ, LC_ALL="C", **extra), timeout=60)
    r2 = run(cmd + [new], env=env_new(**extra), timeout=60)
    o1 = (r1.stdout + r1.stderr).decode("utf-8", "replace")
    o2 = norm((r2.stdout + r2.stderr).decode("utf-8", "replace"))
    desc = "%s --version (%s, %s)" % (name, orig, st.split(":")[0])
    if r1.returncode == r2.returncode and o1 == o2:
        extra_pass.append(desc)
    else:
        extra_fail.append("%s: rc %d vs %d, [%s] vs [%s]" % (desc, r1.returncode, r2.returncode,
                                                              o1.strip()[:200], o2.strip()[:200]))


for n in VERSION_PROGS:
    try:
        version_check(n)
    except subprocess.TimeoutExpired:
        extra_fail.append("%s --version timed out" % n)


def loaded_from_scratch(debug_dir, sonames):
    """Which of sonames LD_DEBUG=libs shows initialised from the scratch copy."""
    text = ""
    for f in os.listdir(debug_dir):
        with open(os.path.join(debug_dir, f), errors="replace") as fh:
            text += fh.read()
    inits = re.findall(r"calling init: (\S+)", text)
    got, missing = [], []
    for so in sonames:
        paths = [p for p in inits if os.path.basename(p) == so or os.path.basename(os.path.realpath(p)) == so]
        if any(p.startswith(FILES) for p in paths):
            got.append(so)
        else:
            missing.append("%s (from %s)" % (so, ", ".join(sorted(set(paths))) or "not loaded"))
    return got, missing


def lib_rewritten(soname):
    p = lib_path(soname)
    return p is not None and p in results and results[p][0] in ("rewritten", "aligned", "none")


def load_check(desc, cmd, sonames, env, expect=None, cwd=None):
    sonames = [s for s in sonames if lib_rewritten(s)]
    if not sonames:
        extra_pass.append("%s: skipped (none of its libraries is among the copies)" % desc)
        return
    dbg = tempfile.mkdtemp(dir=scratch, prefix="lddebug.")
    env = dict(env, LD_DEBUG="libs", LD_DEBUG_OUTPUT=os.path.join(dbg, "log"))
    try:
        r = run(cmd, env=env, timeout=300, cwd=cwd)
    except subprocess.TimeoutExpired:
        extra_fail.append("%s: timed out" % desc)
        return
    out = (r.stdout + r.stderr).decode("utf-8", "replace")
    if r.returncode != 0 or (expect is not None and expect not in out):
        extra_fail.append("%s: rc %d: %s" % (desc, r.returncode, out.strip()[:300]))
        return
    got, missing = loaded_from_scratch(dbg, sonames)
    if missing:
        extra_fail.append("%s: not loaded from the rewritten copies: %s" % (desc, "; ".join(missing)))
    else:
        extra_pass.append("%s: loaded rewritten %s" % (desc, ", ".join(
            "%s (%s)" % (s, results[lib_path(s)][0]) for s in got)))


# python3: import ssl with the rewritten libssl and libcrypto.
py = prog_path("python3")
if py and shutil.which("python3"):
    pyexe = FILES + py if py in results else py
    r = run([py, "-c", "import ssl; print(ssl.OPENSSL_VERSION)"])
    want = r.stdout.decode().strip() if r.returncode == 0 else None
    load_check("python3 -c 'import ssl' (%s)" % ("rewritten python" if pyexe != py else "system python"),
               [pyexe, "-c", "import ssl; print(ssl.OPENSSL_VERSION)"],
               ["libssl.so.3", "libcrypto.so.3"], env_new(PYTHONHOME="/usr"), expect=want)

# curl --version with the rewritten libcurl.
cu = prog_path("curl")
if cu:
    cuexe = FILES + cu if cu in results else cu
    load_check("curl --version", [cuexe, "--version"], ["libcurl.so.4", "libssl.so.3"], env_new(),
               expect="curl ")

# clang compiling and linking a small C file, with rewritten libLLVM and libclang-cpp.
cl = prog_path("clang")
if cl:
    clexe = FILES + cl if cl in results else cl
    work = tempfile.mkdtemp(dir=scratch, prefix="clang.")
    with open(os.path.join(work, "t.c"), "w") as f:
        f.write('#include <stdio.h>\nint main(void) { printf("%d\\n", 6 * 7); return 0; }\n')
    rd = run([cl, "-print-resource-dir"]).stdout.decode().strip()
    load_check("clang compiles t.c", [clexe, "-resource-dir", rd, "-O2", "-o", "t", "t.c"],
               ["libLLVM-14.so.1", "libclang-cpp.so.14"], env_new(), cwd=work)
    if os.path.exists(os.path.join(work, "t")):
        r = run([os.path.join(work, "t")])
        if r.stdout.decode().strip() == "42":
            extra_pass.append("clang's output runs and prints 42")
        else:
            extra_fail.append("clang's output: rc %d [%s]" % (r.returncode, r.stdout.decode()))

# Every rewritten shared library still loads: dlopen it (python ctypes) with
# LD_LIBRARY_PATH at the copies, wherever the original loads.
dl = shutil.which("python3")
DLOPEN = "import ctypes, sys; ctypes.CDLL(sys.argv[1])"
for p, (st, _) in sorted(results.items()):
    if st != "rewritten" or ".so" not in os.path.basename(p) or dl is None:
        continue
    try:
        r0 = run([dl, "-c", DLOPEN, p], timeout=60)
        if r0.returncode != 0:
            continue  # the original cannot be dlopen()ed alone either
        r1 = run([dl, "-c", DLOPEN, FILES + p], env=env_new(), timeout=60)
    except subprocess.TimeoutExpired:
        extra_fail.append("dlopen %s: timed out" % p)
        continue
    if r1.returncode == 0:
        extra_pass.append("dlopen rewritten %s" % p)
    else:
        extra_fail.append("dlopen rewritten %s: %s" % (p, norm(r1.stderr.decode("utf-8", "replace")).strip()[-300:]))

# --- summary --------------------------------------------------------------------
counts = {}
for st, _ in results.values():
    counts[st] = counts.get(st, 0) + 1
refused = sorted((k[len("refused:"):], v) for k, v in counts.items() if k.startswith("refused:"))
for p in extra_pass:
    print("ok - " + p)
for p in extra_fail:
    print("FAIL - " + p)
nfail = counts.get("fail", 0) + len(extra_fail)
print("corpus: %d files, %d rewritten, %d already aligned, %d nothing eligible, %d refused, %d failures"
      % (len(results), counts.get("rewritten", 0), counts.get("aligned", 0), counts.get("none", 0),
         sum(v for _, v in refused), nfail))
for reason, v in refused:
    print("corpus: refused %d: %s" % (v, reason))
    for p, (st, d) in sorted(results.items()):
        if st == "refused:" + reason:
            print("corpus:   %s: %s" % (p, d))
print("corpus: %d load/--version checks passed, %d failed" % (len(extra_pass), len(extra_fail)))
print("corpus: %d s (files %d s, programs %d s), %d jobs"
      % (time.time() - t0, t_files, time.time() - t0 - t_files, jobs))
sys.exit(1 if nfail else 0)
PYEOF

python3 -c "$PY" "$TOOL" "$SCRATCH" "$LIMIT" "$JOBS" "${DIRS[@]}"
