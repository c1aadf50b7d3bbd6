"""Run a program that can open no Internet socket: ``python -m iolab.reports.offline PROGRAM ARGS...``.

Chromium prints the print edition and checks the pages with the network cut by its flags (no
proxy, every host name resolved to nothing: iolab.reports.check.FLAGS), yet its sign-in service
still asks for accounts.google.com at start, and its resolver first probes whether IPv6 reaches the
Internet with a UDP connect() to a public resolver address (2001:4860:4860::8888): no packet, but an
attempt, 1-2 a Chromium run and 8-9 a PDF. No flag of Chromium 150 removes the probe (measured with
the net log and ``strace -f -e trace=connect``; a network namespace of its own only makes the
connect() fail). So Chromium runs under a seccomp filter, set here before it is started, that
refuses socket() for AF_INET and AF_INET6 with EAFNOSUPPORT: it can make no Internet socket, so it
calls no connect() for one; its own sockets (AF_UNIX, netlink) work as before, and the PDF is the
same. The filter is the kernel's, inherited by every process Chromium starts, and cannot be lifted.

Where the filter cannot be set (not Linux, another architecture, seccomp not allowed), the program
runs with Chromium's flags alone: the fallback, said in docs/reports.md.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

# (AUDIT_ARCH_*, the number of socket(2)) per machine
ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}
AF_INET, AF_INET6, EAFNOSUPPORT = 2, 10, 97
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06  # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K
ALLOW, ERRNO = 0x7FFF0000, 0x00050000  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO


def program(arch: int, socket_nr: int) -> list[tuple[int, int, int, int]]:
    """The filter, as (code, jump if true, jump if false, k): socket(AF_INET|AF_INET6, ...) fails with
    EAFNOSUPPORT; every other call, and every call of another architecture's numbering, runs."""
    return [
        (LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (JEQ_K, 0, 5, arch),
        (LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        (JEQ_K, 0, 3, socket_nr),
        (LD_W_ABS, 0, 0, 16),  # seccomp_data.args[0] (its low 32 bits): the address family
        (JEQ_K, 2, 0, AF_INET),
        (JEQ_K, 1, 0, AF_INET6),
        (RET_K, 0, 0, ALLOW),
        (RET_K, 0, 0, ERRNO | EAFNOSUPPORT),
    ]


def no_internet_sockets() -> bool:
    """Set the filter on this process (and so on all it starts); False where it cannot be set."""
    if sys.platform != "linux" or platform.machine() not in ARCHES:
        return False
    code = program(*ARCHES[platform.machine()])
    buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *ins) for ins in code))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = Program(len(code), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return bool(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0)


def main() -> None:
    no_internet_sockets()  # if it cannot be set, Chromium's flags alone cut the network
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
