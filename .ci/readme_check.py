"""Run every command and Python block of a Markdown file in order, as a newcomer would.

    python .ci/readme_check.py README.md [docs/averaging.md ...] [--skip TEXT ...] [--list]

- ```bash / ```sh / ```console blocks: each line is a command (``\\`` continues
  a line, ``#`` starts a comment). A block runs as one bash session (so ``cd``
  carries over), stopping at the first failure.
- ```python blocks: each is saved to a new file and run with ``python``, so
  every block must be self-contained.
- Everything runs in a scratch directory, ``build/readme-check/``, which holds
  links to the repository's top-level files, so that relative paths such as
  ``benchmarks/...`` work and the files the examples write stay out of the
  checkout. The exception is ``pip install``, which runs in the repository root
  because it installs ``.``.
- A ```text block after a runnable block (prose in between is fine, another
  code block is not) is its output. After a Python block it is the whole
  standard output; after a command block it may be an excerpt whose lines
  must appear in that order. In both, ``…`` or ``...`` in an expected line
  matches any text.
- ``<!-- readme-check: skip (reason) -->`` on the line before a fence skips that
  block (for a cluster or a download a CI machine does not have).
- ``--skip TEXT`` skips every command containing TEXT, e.g. ``--skip "python -m
  pytest"`` when CI has just run the tests.

Exits 1 if any block fails, after running them all; prints what failed and why.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / "build" / "readme-check"
_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
_SKIP_MARK = "<!-- readme-check: skip"
_COMMANDS = {"bash", "sh", "shell", "console"}
_OUTPUT = {"text", "output"}


@dataclass
class Block:
    lang: str
    body: str
    line: int  # 1-based line of the opening fence
    skip: bool = False
    expected: str | None = None  # the output block that follows, if any


def parse(markdown: str) -> list[Block]:
    """The runnable blocks of ``markdown``, each with the output block that follows it.

    >>> md = ("x\\n```python\\nprint(1)\\n```\\nsee:\\n```text\\n1\\n```\\n"
    ...       "<!-- readme-check: skip -->\\n```bash\\nls\\n```\\n")
    >>> [(b.lang, b.body, b.line, b.skip, b.expected) for b in parse(md)]
    [('python', 'print(1)\\n', 2, False, '1\\n'), ('bash', 'ls\\n', 10, True, None)]
    """
    lines = markdown.splitlines(keepends=True)
    blocks: list[Block] = []
    last_runnable: Block | None = None
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, lang = match.group(1), match.group(2), match.group(3).lower()
        start = i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1  # the closing fence
        previous = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
        text = "".join(body)
        if lang in _COMMANDS or lang == "python":
            block = Block(lang, text, start + 1, skip=previous.strip().startswith(_SKIP_MARK))
            blocks.append(block)
            last_runnable = block
        elif lang in _OUTPUT and last_runnable is not None and last_runnable.expected is None:
            last_runnable.expected = text
            last_runnable = None
        else:
            last_runnable = None  # any other block breaks the link between code and output
    return blocks


def commands(body: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, comments and blanks dropped.

    >>> commands("# setup\\npip install x && \\\\\\n  run y   # go\\n\\nls\\n")
    ['pip install x &&   run y   # go', 'ls']
    """
    out, current = [], ""
    for raw in body.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            current += line[:-1]
            continue
        line = current + line
        current = ""
        if line.strip() and not line.strip().startswith("#"):
            out.append(line.strip().removeprefix("$ "))
    if current.strip():
        out.append(current.strip())
    return out


def _pattern(expected_line: str) -> re.Pattern:
    parts = re.split(r"…|\.\.\.", expected_line.rstrip())
    return re.compile(".*".join(re.escape(p) for p in parts) + r"\s*")


def matches(expected: str, actual: str, *, whole: bool) -> str | None:
    """None if ``actual`` shows ``expected``; otherwise why not.

    ``whole``: every line, in order, and nothing else (blank lines aside);
    otherwise the expected lines must appear in order among the actual ones.

    >>> matches("a = 1…\\nb\\n", "a = 1.5\\nb\\n", whole=True) is None
    True
    >>> matches("b\\n", "a\\nb\\nc\\n", whole=False) is None
    True
    >>> matches("b\\n", "a\\nb\\n", whole=True)
    "line 1: expected 'b', got 'a'"
    """
    want = [line.rstrip() for line in expected.splitlines() if line.strip()]
    got = [line.rstrip() for line in actual.splitlines() if line.strip()]
    if whole:
        for k, (w, g) in enumerate(zip(want, got, strict=False)):
            if not _pattern(w).fullmatch(g):
                return f"line {k + 1}: expected {w!r}, got {g!r}"
        if len(want) != len(got):
            return f"expected {len(want)} lines of output, got {len(got)}"
        return None
    pos = 0
    for w in want:
        pattern = _pattern(w)
        while pos < len(got) and not pattern.fullmatch(got[pos]):
            pos += 1
        if pos == len(got):
            return f"expected a line {w!r} (in this order) in the output"
        pos += 1
    return None


def _scratch() -> Path:
    """The scratch directory, with a link to every top-level entry of the repository."""
    SCRATCH.mkdir(parents=True, exist_ok=True)
    for entry in ROOT.iterdir():
        link = SCRATCH / entry.name
        if entry.name not in (".git", "build") and not link.exists() and not link.is_symlink():
            link.symlink_to(entry)
    return SCRATCH


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "100", "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        args, cwd=_scratch(), capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def _script(segments: list[str]) -> str:
    """One bash session: each command announced on stderr, ``pip install`` run in the root."""
    lines = ["set -eo pipefail"]
    for segment in segments:
        lines.append(f"echo {shlex.quote('+ ' + segment)} >&2")
        lines.append(f"(cd {shlex.quote(str(ROOT))} && {segment})" if "pip install" in segment else segment)
    return "\n".join(lines) + "\n"


def run_block(block: Block, skip: list[str], timeout: float, index: int) -> tuple[bool, str]:
    """Run one block; return (ok, a report)."""
    if block.skip:
        return True, "skipped (marked in the file)"
    if block.lang == "python":
        path = _scratch() / f"block_{index:02d}.py"
        path.write_text(block.body)
        proc = _run([sys.executable, path.name], timeout)
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or ["(no message)"]
            return False, f"python exited {proc.returncode}: {tail[0]}"
        if block.expected is not None:
            why = matches(block.expected, proc.stdout, whole=True)
            if why:
                return False, f"output differs: {why}\n--- actual output ---\n{proc.stdout}"
        return True, "ok" + (" (output as shown)" if block.expected is not None else "")
    segments = [seg.strip() for command in commands(block.body) for seg in command.split("&&")]
    ran = [seg for seg in segments if not any(text in seg for text in skip)]
    if not ran:
        return True, f"skipped by --skip: {len(segments)} command(s)"
    proc = _run(["bash", "-c", _script(ran)], timeout)
    if proc.returncode != 0:
        started = [line[2:] for line in proc.stderr.splitlines() if line.startswith("+ ")]
        tail = [line for line in proc.stderr.splitlines() if line.strip() and not line.startswith("+ ")][-1:]
        return False, f"`{started[-1] if started else '?'}` exited {proc.returncode}: {(tail or [''])[0]}"
    if block.expected is not None:
        why = matches(block.expected, proc.stdout, whole=False)
        if why:
            return False, f"output differs: {why}\n--- actual output ---\n{proc.stdout}"
    note = f", {len(segments) - len(ran)} skipped by --skip" if len(ran) < len(segments) else ""
    shown = " (output as shown)" if block.expected is not None else ""
    return True, f"ok: {len(ran)} command{'s' if len(ran) != 1 else ''}{note}{shown}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=["README.md"], help="Markdown files, in order")
    parser.add_argument("--skip", action="append", default=[], help="skip commands containing this text")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per command or block")
    parser.add_argument("--list", action="store_true", help="list the blocks without running them")
    args = parser.parse_args(argv)
    failures = index = 0
    for name in args.files:
        path = ROOT / name
        for block in parse(path.read_text()):
            index += 1
            where = f"{name}:{block.line} [{block.lang}]"
            if args.list:
                print(where, "skip" if block.skip else "", block.body.strip().splitlines()[0][:80])
                continue
            start = time.perf_counter()
            try:
                ok, report = run_block(block, args.skip, args.timeout, index)
            except subprocess.TimeoutExpired:
                ok, report = False, f"timed out after {args.timeout:.0f} s"
            failures += not ok
            print(
                f"{'PASS' if ok else 'FAIL'} {where} {time.perf_counter() - start:5.1f} s  {report}",
                flush=True,
            )
    if failures:
        print(f"{failures} block(s) do not work as shown", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
