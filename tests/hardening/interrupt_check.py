#!/usr/bin/env python3
"""Interrupts a running command and checks it leaves no output behind (issue 8, "Interrupted runs").

  interrupt_check.py --signal INT|TERM --after SECONDS --expect-exit N --output PATH [--keep] [--empty DIR]
                     [--within SECONDS] -- CMD...
Starts CMD, sends the signal after SECONDS, and asserts: the exit status is N (130 for SIGINT, 143 for SIGTERM),
PATH (the command's -o target) does not exist — or, with --keep, still holds the bytes it held before — no
temporary file (PATH.vtools-tmp-*) is left in its folder, and DIR (created empty first; e.g. the command's TMPDIR)
is empty again, and CMD ended within SECONDS of the signal (a tool that waits for a child must pass the signal on).
"""
import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--signal", choices=["INT", "TERM"], required=True)
    ap.add_argument("--after", type=float, default=1.0)
    ap.add_argument("--expect-exit", type=int, required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--keep", action="store_true", help="PATH exists before and must be left untouched")
    ap.add_argument("--empty", help="a folder (created empty) that the command must leave empty")
    ap.add_argument("--within", type=float, help="seconds the command may take to end after the signal")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    before = None
    if a.keep:
        with open(a.output, "wb") as f:
            f.write(b"precious previous result\n")
        before = b"precious previous result\n"
    elif os.path.exists(a.output):
        os.unlink(a.output)
    if a.empty:
        os.makedirs(a.empty, exist_ok=True)
        for leftover in os.listdir(a.empty):
            shutil.rmtree(os.path.join(a.empty, leftover))
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(a.after)
    if p.poll() is not None:
        print(f"command finished before the signal (exit {p.returncode}); make it run longer")
        return 1
    p.send_signal(getattr(signal, "SIG" + a.signal))
    signalled = time.monotonic()
    _, err = p.communicate(timeout=60)
    took = time.monotonic() - signalled
    problems = []
    if a.within is not None and took > a.within:
        problems.append(f"ended {took:.1f} s after the signal, expected within {a.within} s")
    if p.returncode != a.expect_exit:
        problems.append(f"exit {p.returncode}, expected {a.expect_exit}")
    if a.keep:
        with open(a.output, "rb") as f:
            if f.read() != before:
                problems.append(f"{a.output} was changed by the interrupted run")
    elif os.path.exists(a.output):
        problems.append(f"{a.output} exists after the interrupted run")
    leftovers = glob.glob(a.output + ".vtools-tmp-*")
    if leftovers:
        problems.append(f"temporary files left: {leftovers}")
    if a.empty and os.listdir(a.empty):
        problems.append(f"{a.empty} holds {os.listdir(a.empty)} after the interrupted run")
    for pr in problems:
        print("FAIL:", pr)
    if problems:
        print("stderr:", err.decode("utf-8", "replace")[:2000])
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
