#!/usr/bin/env bash
# The files built for AVX-512 (kernels/cpu/*_avx512.cpp) must define nothing that another
# file could share: a weak or unique symbol there (an inline function or template that
# other files also emit) may be the copy the linker keeps for the whole program, and its
# AVX-512 code would then run on a CPU without it. Only their own functions, strong.
#   avx512_objects_test.sh OBJECT...   (the kernels library's objects; others are skipped)
set -euo pipefail
checked=0
for object in "$@"; do
  [[ $object == *_avx512.cpp.o ]] || continue
  checked=$((checked + 1))
  shared=$(nm -C "$object" | awk '$2 ~ /^[WVu]$/' || true)
  if [[ -n $shared ]]; then
    echo "$object defines symbols another file may share:"
    echo "$shared"
    exit 1
  fi
done
((checked >= 2)) || { echo "expected the AVX-512 objects among the arguments, found $checked"; exit 1; }
echo "$checked AVX-512 objects define only their own strong symbols"
