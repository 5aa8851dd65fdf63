"""What a shell command line reads and writes, and the simple commands it runs.

A tolerant lexer (it never raises: an unbalanced quote reads to the end) splits the line on
`&&`, `||`, `;`, `|`, `&`, newlines, subshells, `$( )`, backticks and `<( )`, keeps heredoc bodies
apart (also in published records where newlines were flattened to spaces), then a small
interpreter tracks `cd`, `VAR=value` and `for x in ...` so `cd dir && cat name`, `cat $P/x.md` and
`for f in a b; do cat "$f"; done` resolve to the files they read. Shell quoting rules the scorer
needs are implemented here rather than with `shlex` because `shlex` drops operators, heredocs
and quote information. See docs/scoring.md for each rule and the measurement error it prevents.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field

from workbench.core.paths import join, normalize

_MAX_DEPTH = 24
_MAX_EXPANSION = 64
_SUBST = "\x00"
_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"
_PLACEHOLDER_RE = re.compile(r"<([A-Za-z][\w.-]*)>(?=[/\s\"';|&)]|$)")
_ASSIGN_RE = re.compile(r"^[A-Za-z_]\w*=")
_VAR_RE = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")


@dataclass
class ShellAnalysis:
    """Files a command line reads and writes (resolved), and its simple commands as word lists."""

    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    simple_commands: list[list[str]] = field(default_factory=list)


# ---------------------------------------------------------------- lexer


@dataclass
class _Word:
    text: str
    quoted: bool = False
    single_only: bool = False
    subs: list[list[_Item]] = field(default_factory=list)


@dataclass
class _Op:
    op: str


@dataclass
class _Redir:
    op: str


@dataclass
class _Heredoc:
    body: str = ""


_Item = _Word | _Op | _Redir | _Heredoc


class _Lexer:
    """Turns a command line into words, operators, redirections and heredocs; never raises."""

    def __init__(self, text: str, pos: int = 0, depth: int = 0, closer: str | None = None) -> None:
        self.s = text
        self.i = pos
        self.depth = depth
        self.closer = closer
        self.items: list[_Item] = []
        self.pending: list[tuple[_Heredoc, str]] = []
        self._reset_word()

    def _reset_word(self) -> None:
        self.buf: list[str] = []
        self.in_word = False
        self.quoted = False
        self.unquoted_part = False
        self.subs: list[list[_Item]] = []

    def _flush(self) -> None:
        if self.in_word:
            single_only = self.quoted and not self.unquoted_part
            self.items.append(_Word("".join(self.buf), self.quoted, single_only, self.subs))
        self._reset_word()

    def _add(self, text: str, *, quoted: bool = False, single: bool = False) -> None:
        self.in_word = True
        self.buf.append(text)
        if quoted:
            self.quoted = True
        if not single:
            self.unquoted_part = True

    def run(self) -> list[_Item]:
        s = self.s
        n = len(s)
        while self.i < n:
            c = s[self.i]
            nxt = s[self.i + 1] if self.i + 1 < n else ""
            if c == "\\" and nxt == "\n":
                self.i += 2
            elif c in " \t\r":
                self._flush()
                self.i += 1
            elif c == "\n":
                self._flush()
                self.items.append(_Op("\n"))
                self.i += 1
                self._read_heredoc_bodies()
            elif c == "#" and not self.in_word:
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c == "'":
                end = s.find("'", self.i + 1)
                end = n if end < 0 else end
                self._add(s[self.i + 1:end], quoted=True, single=True)
                self.i = end + 1
            elif c == '"':
                self._double_quoted()
            elif c == "\\":
                self._add(nxt)
                self.i += 2
            elif c == "$" and nxt == "(":
                if s.startswith("$((", self.i):
                    end = s.find("))", self.i)
                    end = n if end < 0 else end + 2
                    self._add(s[self.i:end])
                    self.i = end
                else:
                    self._substitution(self.i + 2, ")")
            elif c == "`":
                self._substitution(self.i + 1, "`")
            elif c in "<>" and nxt == "(" and not self.in_word:
                self._substitution(self.i + 2, ")")
            elif c == ")" and self.closer == ")":
                self._flush()
                self.i += 1
                return self.items
            elif c in "();|&<>":
                self._operator()
            else:
                self._add(c)
                self.i += 1
        self._flush()
        self._read_heredoc_bodies()
        return self.items

    def _double_quoted(self) -> None:
        s, n = self.s, len(self.s)
        self.i += 1
        self._add("", quoted=True)
        while self.i < n and s[self.i] != '"':
            c = s[self.i]
            if c == "\\" and self.i + 1 < n and s[self.i + 1] in '"\\$`':
                self._add(s[self.i + 1])
                self.i += 2
            elif c == "$" and s.startswith("$(", self.i) and not s.startswith("$((", self.i):
                self._substitution(self.i + 2, ")")
            elif c == "`":
                self._substitution(self.i + 1, "`")
            else:
                self._add(c)
                self.i += 1
        self.i += 1

    def _substitution(self, start: int, closer: str) -> None:
        """`$( )`, backticks, `<( )`: lex the inside as its own command list."""
        if self.depth >= _MAX_DEPTH:
            self._add(self.s[self.i:start])
            self.i = start
            return
        if closer == "`":
            end = self.s.find("`", start)
            end = len(self.s) if end < 0 else end
            inner = _Lexer(self.s[start:end], 0, self.depth + 1).run()
            self.i = end + 1
        else:
            sub = _Lexer(self.s, start, self.depth + 1, ")")
            inner = sub.run()
            self.i = sub.i
        self.subs.append(inner)
        self._add(_SUBST)

    def _operator(self) -> None:
        s = self.s
        fd = "".join(self.buf) if self.in_word and not self.quoted and "".join(self.buf).isdigit() else ""
        c = s[self.i]
        if c in "<>" and fd:
            self._reset_word()
        else:
            self._flush()
        for op in ("&>>", "&>", "<<<", "<<-", "<<", ">>", ">|", ">&", "<&", "<>", ">", "<"):
            if s.startswith(op, self.i):
                self.i += len(op)
                self.items.append(_Redir(fd + op))
                if op in ("<<", "<<-"):
                    self._register_heredoc()
                return
        for op in ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")"):
            if s.startswith(op, self.i):
                self.i += len(op)
                self.items.append(_Op(op))
                return
        self.i += 1  # unreachable in practice: every char of "();|&<>" has an operator above

    def _register_heredoc(self) -> None:
        s, n = self.s, len(self.s)
        while self.i < n and s[self.i] in " \t":
            self.i += 1
        m = re.match(r"""'([^']*)'|"([^"]*)"|\\?([^\s;|&<>()]+)""", s[self.i:])
        if not m:
            return
        delim = next(g for g in m.groups() if g is not None)
        self.i += m.end()
        doc = _Heredoc()
        self.items.append(doc)
        if not delim:
            return
        line_end = s.find("\n", self.i)
        if line_end >= 0 and re.search(r"(?m)^[ \t]*" + re.escape(delim) + r"[ \t]*$", s[line_end + 1:]):
            self.pending.append((doc, delim))
            return
        # Published records flatten newlines to spaces: the body ends at the delimiter as a word.
        end = re.compile(r"(?<!\S)" + re.escape(delim) + r"(?!\S)").search(s, self.i)
        if end is None:
            doc.body, self.i = s[self.i:], n
        else:
            doc.body, self.i = s[self.i:end.start()], end.end()

    def _read_heredoc_bodies(self) -> None:
        s = self.s
        for doc, delim in self.pending:
            pat = re.compile(r"(?m)^[ \t]*" + re.escape(delim) + r"[ \t]*$")
            m = pat.search(s, self.i)
            if m is None:
                doc.body, self.i = s[self.i:], len(s)
            else:
                doc.body, self.i = s[self.i:m.start()], m.end()
        self.pending = []


# ---------------------------------------------------------------- interpreter


@dataclass
class _Cmd:
    words: list[_Word] = field(default_factory=list)
    redirs: list[tuple[str, _Word | None]] = field(default_factory=list)
    heredocs: list[str] = field(default_factory=list)


@dataclass
class _State:
    cwd: str | None
    vars: dict[str, list[str]]
    reads: list[str]
    writes: list[str]
    commands: list[list[str]]
    depth: int = 0


def _split_commands(items: list[_Item]) -> list[_Cmd | _Op]:
    """Group lexer items into simple commands separated by operators."""
    out: list[_Cmd | _Op] = []
    cur = _Cmd()
    pending_redir: str | None = None
    for item in items:
        if isinstance(item, _Op):
            if cur.words or cur.redirs or cur.heredocs:
                out.append(cur)
            cur = _Cmd()
            pending_redir = None
            out.append(item)
        elif isinstance(item, _Redir):
            if item.op.endswith(("<<", "<<-")):
                cur.redirs.append((item.op, None))
            else:
                pending_redir = item.op
        elif isinstance(item, _Heredoc):
            cur.heredocs.append(item.body)
        elif pending_redir is not None:
            cur.redirs.append((pending_redir, item))
            pending_redir = None
        else:
            cur.words.append(item)
    if cur.words or cur.redirs or cur.heredocs:
        out.append(cur)
    return out


def _unmask(text: str) -> str:
    return text.replace(_PH_OPEN, "<").replace(_PH_CLOSE, ">")


def _brace_expand(text: str) -> list[str]:
    """`dir/{a,b}.md` -> `dir/a.md`, `dir/b.md` (first group, recursively, capped)."""
    m = re.search(r"\{([^{}]*,[^{}]*)\}", text)
    if not m:
        return [text]
    out: list[str] = []
    for part in m.group(1).split(","):
        out.extend(_brace_expand(text[:m.start()] + part + text[m.end():]))
        if len(out) >= _MAX_EXPANSION:
            break
    return out[:_MAX_EXPANSION]


def _lookup(values: dict[str, str], m: re.Match[str]) -> str:
    return values.get(m.group(1) or m.group(2), m.group(0))


def _expand(word: _Word, st: _State) -> list[str]:
    """Expand known variables, `~`, and brace lists; unknown `$X` and `$( )` stay literal."""
    text = word.text
    if word.single_only:
        return [_unmask(text)]
    names = [a or b for a, b in _VAR_RE.findall(text)]
    known = [nm for nm in dict.fromkeys(names) if nm in st.vars]
    results = [text]
    if known:
        results = []
        for combo in itertools.islice(itertools.product(*(st.vars[k] for k in known)), _MAX_EXPANSION):
            value = dict(zip(known, combo, strict=True))
            results.append(_VAR_RE.sub(functools.partial(_lookup, value), text))
    if not word.quoted:
        results = [x for r in results for x in _brace_expand(r)][:_MAX_EXPANSION]
    return [_unmask(r).replace(_SUBST, "$(...)") for r in results]


def _is_dev(path: str) -> bool:
    return path.startswith("/dev/") or path == "-"


def _writes_to(op: str, target: str) -> bool:
    """A redirection into a file: not `>/dev/null`, `2>&1`, `>&2`."""
    if op.endswith(">&"):
        return not (target.isdigit() or target == "-")
    return op.endswith((">", ">>", ">|", "<>")) and not _is_dev(target)


_WRAPPERS_WITH_VALUE = {"timeout": 1, "nice": 0, "nohup": 0, "exec": 0, "time": 0, "stdbuf": 0}


def _strip_prefix(words: list[str], *, deep: bool) -> list[str]:
    """Drop `VAR=x` assignments, `sudo`/`env` (and with `deep`, `time`, `timeout N`, `command X`)."""
    i = 0
    while i < len(words):
        w = words[i]
        if _ASSIGN_RE.match(w) or w in ("!", "{", "}"):
            i += 1
        elif w == "sudo" or w == "env":
            i += 1
            while i < len(words) and (words[i].startswith("-") or _ASSIGN_RE.match(words[i])):
                i += 2 if words[i] in ("-u", "-g", "-C", "-S", "--chdir", "-u") else 1
        elif deep and w in _WRAPPERS_WITH_VALUE:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
            i += _WRAPPERS_WITH_VALUE[w]
        elif deep and w == "command" and i + 1 < len(words) and not words[i + 1].startswith("-"):
            i += 1
        else:
            break
    return words[i:]


def _operands(args: list[str], with_value: str = "", long_with_value: frozenset[str] = frozenset(),
              ) -> tuple[list[str], list[tuple[str, str | None]]]:
    """Split arguments into operands and (option, value) pairs, getopt-style."""
    ops: list[str] = []
    opts: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            ops.extend(args[i + 1:])
            break
        if a.startswith("--"):
            name, eq, val = a.partition("=")
            if not eq and name in long_with_value and i + 1 < len(args):
                opts.append((name, args[i + 1]))
                i += 2
                continue
            opts.append((name, val if eq else None))
        elif a.startswith("-") and len(a) > 1 and not a[1:].isdigit():
            j = 1
            while j < len(a):
                flag = a[j]
                if flag in with_value:
                    rest = a[j + 1:]
                    if rest:
                        opts.append(("-" + flag, rest))
                    elif i + 1 < len(args):
                        opts.append(("-" + flag, args[i + 1]))
                        i += 1
                    else:
                        opts.append(("-" + flag, None))
                    break
                opts.append(("-" + flag, None))
                j += 1
        elif a.startswith("-") and len(a) > 1:
            opts.append((a, None))
        else:
            ops.append(a)
        i += 1
    return ops, opts


_PLAIN_READERS = {"cat": "", "tac": "", "nl": "bdfhilnpsvw", "less": "bhjopPtTxyz", "more": "n",
                  "bat": "lmrHL", "batcat": "lmrHL", "view": "cStTuUwW", "head": "nc", "tail": "ncs"}
_GREP_SILENT = {"-l", "-L", "-c", "-q", "--files-with-matches", "--files-without-match", "--count",
                "--quiet", "--silent", "--files"}
_GREP_LONG = frozenset({"--regexp", "--file", "--max-count", "--include", "--exclude", "--exclude-dir",
                        "--context", "--after-context", "--before-context", "--label", "--glob", "--iglob",
                        "--type", "--type-not", "--max-depth", "--encoding", "--sort", "--sortr",
                        "--replace", "--type-add", "--max-columns", "--threads"})
_PY_OPEN = re.compile(
    r"""open\(\s*(['"])([^'"\n]+)\1\s*(?:,\s*(?:mode\s*=\s*)?(['"])([^'"\n]*)\3)?""")
_PY_PATH = re.compile(
    r"""(?:\b([A-Za-z_]\w*)\s*=\s*)?(?:pathlib\.)?Path\(\s*(['"])([^'"\n]+)\2\s*\)(\.\w+)?""")
_PY_READ_METHODS = (".read_text", ".read_bytes", ".open")
_PY_WRITE_METHODS = (".write_text", ".write_bytes")


def python_files(code: str) -> tuple[list[str], list[str]]:
    """Literal paths a Python snippet opens for reading and for writing (`open`, `pathlib.Path`)."""
    reads: list[str] = []
    writes: list[str] = []
    for m in _PY_OPEN.finditer(code):
        mode = m.group(4) or "r"
        if set(mode) & set("wax+"):
            writes.append(m.group(2))
        if "r" in mode or "+" in mode:
            reads.append(m.group(2))
    for m in _PY_PATH.finditer(code):
        var, path, tail = m.group(1), m.group(3), m.group(4) or ""
        used = [tail]
        if var:
            used += [u.group(1) for u in re.finditer(r"\b" + re.escape(var) + r"(\.\w+)\(", code)]
            if re.search(r"open\(\s*" + re.escape(var) + r"\b", code):
                used.append(".open")
        if any(u in _PY_READ_METHODS for u in used):
            reads.append(path)
        if any(u in _PY_WRITE_METHODS for u in used):
            writes.append(path)
    return reads, writes


def _patch_targets(text: str) -> list[str]:
    found = re.findall(r"\*\*\* (?:Update|Add|Delete) File:\s*(\S+)", text)
    return found or ["<apply_patch>"]


class _Interp:
    """Runs simple commands symbolically, collecting reads, writes and word lists."""

    def __init__(self, st: _State) -> None:
        self.st = st

    def run(self, items: list[_Item]) -> None:
        saved: list[tuple[str | None, dict[str, list[str]]]] = []
        for node in _split_commands(items):
            if isinstance(node, _Op):
                if node.op == "(":
                    saved.append((self.st.cwd, dict(self.st.vars)))
                elif node.op == ")" and saved:
                    self.st.cwd, self.st.vars = saved.pop()
                continue
            self._command(node)

    def _sub(self, items: list[_Item]) -> None:
        if self.st.depth >= _MAX_DEPTH:
            return
        inner = _State(self.st.cwd, dict(self.st.vars), self.st.reads, self.st.writes, self.st.commands,
                       self.st.depth + 1)
        _Interp(inner).run(items)

    def _text(self, text: str, cwd: str | None) -> None:
        """Analyze a script given as text (`sh -c`, `bash <<EOF`) in the current state."""
        if self.st.depth >= _MAX_DEPTH:
            return
        inner = _State(cwd, dict(self.st.vars), self.st.reads, self.st.writes, self.st.commands,
                       self.st.depth + 1)
        _Interp(inner).run(_Lexer(_mask(text), depth=self.st.depth + 1).run())

    def _path(self, p: str) -> str:
        return join(self.st.cwd, p)

    def _command(self, cmd: _Cmd) -> None:
        for w in cmd.words:
            for sub in w.subs:
                self._sub(sub)
        for _, target in cmd.redirs:
            for sub in target.subs if target else []:
                self._sub(sub)
        words = [x for w in cmd.words for x in _expand(w, self.st)]
        if words and all(_ASSIGN_RE.match(w) for w in words):
            for w in cmd.words:
                name, _, _ = w.text.partition("=")
                values = _expand(_Word(w.text[len(name) + 1:], w.quoted, w.single_only), self.st)
                self.st.vars[name] = values
            return
        shown = _strip_prefix(words, deep=False)
        while shown and shown[0] in ("then", "do", "else", "elif", "if", "while", "until"):
            shown = shown[1:]
        if shown and shown[0] not in ("done", "fi", "esac"):
            self.st.commands.append(shown)
        argv = _strip_prefix(shown, deep=True)
        name = argv[0].rsplit("/", 1)[-1] if argv else ""
        args = argv[1:]
        reader = self._dispatch(name, args, cmd)
        for op, target in cmd.redirs:
            if target is None:
                continue
            for path in _expand(target, self.st):
                if op.endswith("<") and reader:
                    self.st.reads.append(self._path(path))
                elif _writes_to(op, path):
                    self.st.writes.append(self._path(path))

    def _dispatch(self, name: str, args: list[str], cmd: _Cmd) -> bool:
        """Record what one command does; True when it prints the files it is given (a reader)."""
        st = self.st
        if name in ("cd", "pushd"):
            ops = [a for a in args if not a.startswith("-")]
            if not ops:
                st.cwd = None if (args and args[0] == "-") or name == "pushd" else "<home>"
            else:
                st.cwd = None if ops[0] == "-" else self._path(ops[0])
            return False
        if name == "popd":
            st.cwd = None
            return False
        if name == "for" and len(args) >= 2 and args[1] == "in":
            st.vars[args[0]] = args[2:]
            return False
        if name in _PLAIN_READERS:
            ops, _ = _operands(args, _PLAIN_READERS[name])
            st.reads.extend(self._path(p) for p in ops if p != "-")
            return True
        if name == "sed":
            return self._sed(args)
        if name in ("awk", "gawk", "mawk", "nawk"):
            ops, opts = _operands(args, "Fvf")
            if not any(o == "-f" for o, _ in opts):
                ops = ops[1:]
            st.reads.extend(self._path(p) for p in ops if not _ASSIGN_RE.match(p) and p != "-")
            return True
        if name in ("grep", "egrep", "fgrep", "rg"):
            return self._grep(name, args)
        if re.fullmatch(r"python[\d.]*|pypy3?", name):
            self._python(args, cmd)
            return False
        if name in ("sh", "bash", "zsh", "dash", "ksh"):
            self._shell(args, cmd)
            return False
        if name in ("perl",):
            self._perl(args)
            return False
        self._writer(name, args, cmd)
        return False

    def _sed(self, args: list[str]) -> bool:
        ops, opts = _operands(args, "efl", frozenset({"--expression", "--file", "--line-length"}))
        in_place = any(o in ("-i", "--in-place") for o, _ in opts)
        if not any(o in ("-e", "-f", "--expression", "--file") for o, _ in opts):
            ops = ops[1:]
        files = [self._path(p) for p in ops if p != "-"]
        (self.st.writes if in_place else self.st.reads).extend(files)
        return not in_place

    def _grep(self, name: str, args: list[str]) -> bool:
        with_value = "efgtTmABCMjE" if name == "rg" else "efmABCdD"
        ops, opts = _operands(args, with_value, _GREP_LONG)
        if any(o in _GREP_SILENT for o, _ in opts):
            return False
        if not any(o in ("-e", "-f", "--regexp", "--file") for o, _ in opts):
            ops = ops[1:]
        self.st.reads.extend(self._path(p) for p in ops if p != "-")
        return True

    def _python(self, args: list[str], cmd: _Cmd) -> None:
        ops, opts = _operands(args, "cmWX")
        code: str | None = next((v for o, v in opts if o == "-c" and v is not None), None)
        if code is None and any(o == "-m" for o, _ in opts):
            return
        if code is None and (not ops or ops[0] == "-") and cmd.heredocs:
            code = cmd.heredocs[0]
        if code is None:
            return
        reads, writes = python_files(code)
        self.st.reads.extend(self._path(p) for p in reads)
        self.st.writes.extend(self._path(p) for p in writes)

    def _shell(self, args: list[str], cmd: _Cmd) -> None:
        for k, a in enumerate(args):
            if re.fullmatch(r"-[a-z]*c[a-z]*", a) and k + 1 < len(args):
                self._text(args[k + 1], self.st.cwd)
                return
            if not a.startswith("-"):
                return
        for body in cmd.heredocs:
            self._text(body, self.st.cwd)

    def _perl(self, args: list[str]) -> None:
        in_place = False
        files: list[str] = []
        skip = False
        for a in args:
            if skip:
                skip = False
            elif a in ("-e", "-E", "-I", "-M"):
                skip = True
            elif a.startswith("-"):
                in_place = in_place or bool(re.match(r"-[a-zA-Z0-9]*i", a))
            else:
                files.append(a)
        if in_place:
            self.st.writes.extend(self._path(p) for p in files)

    def _writer(self, name: str, args: list[str], cmd: _Cmd) -> None:
        st = self.st
        if name == "tee":
            ops, _ = _operands(args)
            st.writes.extend(self._path(p) for p in ops if not _is_dev(p))
        elif name in ("rm", "truncate", "shred", "unlink"):  # not touch: an existing file keeps its content
            ops, _ = _operands(args, "rs" if name == "truncate" else "")
            st.writes.extend(self._path(p) for p in ops if not _is_dev(p))
        elif name in ("cp", "mv", "install"):
            ops, opts = _operands(args, "tSgmo", frozenset({"--target-directory", "--suffix"}))
            target = next((v for o, v in opts if o in ("-t", "--target-directory") and v), None)
            if target is not None:
                st.writes.append(self._path(target))
            elif len(ops) >= 2:
                st.writes.append(self._path(ops[-1]))
            if name == "mv":
                st.writes.extend(self._path(p) for p in (ops if target else ops[:-1]))
        elif name in ("apply_patch", "applypatch"):
            text = " ".join(args) + "\n" + "\n".join(cmd.heredocs)
            st.writes.extend(self._path(p) for p in _patch_targets(text))
        elif name == "patch":
            ops, _ = _operands(args, "iopdDBrFzVY")
            st.writes.append(self._path(ops[0]) if ops else "<patch>")
        elif name == "git" and _git_subcommand(args) == ("apply", True):
            st.writes.append("<git apply>")


_GIT_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
_GIT_APPLY_DRY = frozenset({"--check", "--stat", "--numstat", "--summary", "--cached"})
"""`git apply` options that change no file of the tree (`--cached` only the index)."""


def _git_subcommand(args: list[str]) -> tuple[str | None, bool]:
    """Git's subcommand after its global options (`git -C dir apply`), and whether a `git apply`
    changes the tree (none of the dry-run or index-only options)."""
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in _GIT_GLOBAL_VALUE else 1
    if k >= len(args):
        return None, False
    rest = args[k + 1:]
    writes = args[k] == "apply" and ("--apply" in rest or not any(a in _GIT_APPLY_DRY for a in rest))
    return args[k], writes


def _mask(text: str) -> str:
    """Protect anonymized placeholders (`<plugin>/x`) from being lexed as redirections."""
    return _PLACEHOLDER_RE.sub(lambda m: _PH_OPEN + m.group(1) + _PH_CLOSE, text)


@functools.lru_cache(maxsize=4096)
def _analyze_cached(command: str, cwd: str | None) -> tuple[tuple[str, ...], tuple[str, ...],
                                                             tuple[tuple[str, ...], ...]]:
    st = _State(normalize(cwd) if cwd else None, {"HOME": ["<home>"]}, [], [], [])
    _Interp(st).run(_Lexer(_mask(command)).run())
    return (tuple(dict.fromkeys(r for r in st.reads if r and r != "$(...)")),
            tuple(dict.fromkeys(w for w in st.writes if w and w != "$(...)")),
            tuple(tuple(c) for c in st.commands))


def analyze(command: str, cwd: str | None = None) -> ShellAnalysis:
    """What `command` reads and writes (paths resolved against `cwd` and any `cd` in it)."""
    reads, writes, commands = _analyze_cached(command, cwd)
    return ShellAnalysis(list(reads), list(writes), [list(c) for c in commands])


def reads_of(command: str) -> tuple[str, ...]:
    """`analyze(command).reads`, as the remembered tuple (no copy: for callers that only look)."""
    return _analyze_cached(command, None)[0]


def writes_of(command: str) -> tuple[str, ...]:
    """`analyze(command).writes`, as the remembered tuple."""
    return _analyze_cached(command, None)[1]


def commands_of(command: str) -> tuple[tuple[str, ...], ...]:
    """`analyze(command).simple_commands`, as the remembered tuples."""
    return _analyze_cached(command, None)[2]
