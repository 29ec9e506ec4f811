/* Stands in for libcuda.so.1 in the CPU-only CLI tests of `vtrace run`: it only lets vtrace's check "is an NVIDIA
 * driver installed" pass on a machine without one, so the real parent path (fork/exec, stdio and exit status pass-
 * through, raw record files, trace assembly, atomic output) runs end to end. It exports no CUDA API: a command that
 * really used CUDA under it would fail to load the driver. */
int vtrace_driver_stub(void) { return 0; }
