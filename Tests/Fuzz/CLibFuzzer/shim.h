// libFuzzer's driver entry point (compiler-rt, linked by -sanitize=fuzzer). The fuzz binary
// calls it from its own `main`: SwiftPM links executables with `--defsym main=<Module>_main`,
// which leaves libFuzzer's `main` out, so the target supplies that symbol and hands over.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
