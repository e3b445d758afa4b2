// <immintrin.h>, for the files whose SIMD versions are chosen at run time
// (count_ones.cpp, word_batch.cpp).  GCC 12's AVX-512 intrinsics start
// some results from a variable that initializes itself, which
// -Wuninitialized and -Wmaybe-uninitialized then report wherever they are
// inlined: both are turned off for the rest of the including file.
#pragma once

#if defined(__x86_64__)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif
