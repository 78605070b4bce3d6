#!/usr/bin/env bash
# The files built for AVX-512 or AVX2 (kernels/cpu/*_avx512.cpp, *_avx2.cpp) must define
# nothing that another file could share: a weak or unique symbol there (an inline function
# or template that other files also emit) may be the copy the linker keeps for the whole
# program, and its vector code would then run on a CPU without those instructions. Only
# their own functions, strong.
#   vector_objects_test.sh OBJECT...   (the kernels library's objects; others are skipped)
set -euo pipefail
checked=0
for object in "$@"; do
  [[ $object == *_avx512.cpp.o || $object == *_avx2.cpp.o ]] || continue
  checked=$((checked + 1))
  shared=$(nm -C "$object" | awk '$2 ~ /^[WVu]$/' || true)
  if [[ -n $shared ]]; then
    echo "$object defines symbols another file may share:"
    echo "$shared"
    exit 1
  fi
done
((checked >= 4)) || { echo "expected the AVX-512 and AVX2 objects among the arguments, found $checked"; exit 1; }
echo "$checked vector objects (AVX-512, AVX2) define only their own strong symbols"
