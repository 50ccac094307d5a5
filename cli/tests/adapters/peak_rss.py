"""Runs a command and writes its peak resident memory in bytes to a file, as the kernel counted it
when the command was reaped (`ru_maxrss` of this process's children: the largest of the command
and of the processes it waited for). Exits with the command's exit code; its output passes through.

    python3 peak_rss.py PEAK_FILE COMMAND [ARG ...]

cli/tests/it/gate.rs measures bcast with it: a process that bcast's test binary started itself
would begin its count at that binary's own peak (the kernel carries it over through exec).
"""

import resource
import subprocess
import sys


def main():
    peak_file, command = sys.argv[1], sys.argv[2:]
    code = subprocess.call(command)
    # ru_maxrss is in kilobytes on Linux.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    with open(peak_file, "w") as f:
        f.write(f"{peak}\n")
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
