// libFuzzer's driver (compiler-rt, linked by `-sanitize=fuzzer`). SwiftPM links an executable
// target's own `main`, so libFuzzer's is never used: the target's main.swift calls this instead.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
