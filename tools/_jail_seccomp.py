"""A small seccomp filter for the jail: no new user namespaces, no kernel features jailed code never needs.

Jailed code runs as an unprivileged uid, so most of what it could try already fails for want of
privilege. One thing an unprivileged process may still do is create a user namespace, and with it
a private root that reaches much more of the kernel (mounts, netfilter, ...): a common first step in
kernel exploits. The filter refuses that, and a few interfaces with a long record of such bugs
(bpf, perf events, userfaultfd, io_uring, keyrings, ptrace), with EPERM. It is written directly as
classic BPF (what bubblewrap's --seccomp takes) for x86-64 and aarch64; system calls of any other
ABI, such as 32-bit calls on x86-64, kill the process.
"""
from __future__ import annotations

import os
import platform
import struct

# classic BPF opcodes
_LD_W_ABS, _JEQ_K, _JSET_K, _JGE_K, _RET_K = 0x20, 0x15, 0x45, 0x35, 0x06
_RET_ALLOW, _RET_KILL_PROCESS, _RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_EPERM, _ENOSYS = 1, 38
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (arg0's low word, little-endian)
_CLONE_NEW_ANY = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET

# (audit arch, x32 bit or 0, clone, clone3, denied system calls)
_ARCHES = {
    "x86_64": (0xC000003E, 0x40000000, 56, 435, {
        "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "ptrace": 101,
        "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425, "keyctl": 250,
        "add_key": 248, "request_key": 249, "kexec_load": 246, "open_by_handle_at": 304, "fsopen": 430,
        "fsmount": 432, "open_tree": 428, "move_mount": 429, "process_vm_writev": 311}),
    "aarch64": (0xC00000B7, 0, 220, 435, {
        "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "ptrace": 117,
        "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425, "keyctl": 219,
        "add_key": 217, "request_key": 218, "kexec_load": 104, "open_by_handle_at": 265, "fsopen": 430,
        "fsmount": 432, "open_tree": 428, "move_mount": 429, "process_vm_writev": 271}),
}


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine's architecture, or None where we have no table for it."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, x32_bit, clone, clone3, denied = arch
    out = [_ins(_LD_W_ABS, _ARCH), _ins(_JEQ_K, audit_arch, 1, 0), _ins(_RET_K, _RET_KILL_PROCESS), _ins(_LD_W_ABS, _NR)]
    if x32_bit:
        out += [_ins(_JGE_K, x32_bit, 0, 1), _ins(_RET_K, _RET_KILL_PROCESS)]
    # clone3 passes its flags in memory a filter cannot read: say "not implemented" and libc falls back to clone
    out += [_ins(_JEQ_K, clone3, 0, 1), _ins(_RET_K, _RET_ERRNO | _ENOSYS)]
    for nr in sorted(denied.values()):
        out += [_ins(_JEQ_K, nr, 0, 1), _ins(_RET_K, _RET_ERRNO | _EPERM)]
    out += [_ins(_JEQ_K, clone, 0, 3), _ins(_LD_W_ABS, _ARG0), _ins(_JSET_K, _CLONE_NEW_ANY, 0, 1),
            _ins(_RET_K, _RET_ERRNO | _EPERM), _ins(_RET_K, _RET_ALLOW)]
    return b"".join(out)


def program_fd() -> int | None:
    """An anonymous file holding the filter, positioned at its start, for bubblewrap's --seccomp FD."""
    prog = program()
    if prog is None:
        return None
    fd = os.memfd_create("epi-jail-seccomp", 0)  # inheritable: bubblewrap reads it after exec
    os.write(fd, prog)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
