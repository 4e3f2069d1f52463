# kvm-exit on a KVM host with a running guest: exits are paired and named; else skipped.
. "$(dirname "$0")/lib.sh"; need_root; need_tracefs
[ -d "$TFS/events/kvm/kvm_exit" ] || skip "no kvm:kvm_exit tracepoint (kvm module not loaded)"
pgrep -x 'qemu-system-x86|qemu-kvm|firecracker|cloud-hyperviso|crosvm' >/dev/null 2>&1 && [ -e /dev/kvm ] ||
	skip "no KVM guest running on this machine (kvm-exit needs one to see exits)"
out=$(q kvm-exit -d 1s) || fail "kvm-exit failed"
[ -n "$out" ] || fail "a guest runs, but no exits were paired in 1 s"
echo "ok: $(printf '%s\n' "$out" | wc -l) exit reasons"
