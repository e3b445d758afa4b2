// <immintrin.h>, for the files whose SIMD versions are chosen at run time
// (count_ones.cpp, word_batch.cpp, fingerprint.cpp), and the tests of
// the AVX-512 they use.  GCC 12's AVX-512 intrinsics start some results
// from a variable that initializes itself, which -Wuninitialized and
// -Wmaybe-uninitialized report wherever they are inlined, at a line of
// the intrinsics' header: both are off for that header only, so that our
// own code keeps the warnings.
#pragma once

#if defined(__x86_64__)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

#if defined(__x86_64__)
namespace simhash {
namespace detail {
// Whether the CPU and the operating system support AVX-512 F, BW, DQ and
// CD (every AVX-512 CPU since Skylake), which every AVX-512 version in the
// core may use; asked once.
inline bool cpu_has_avx512() noexcept {
    static const bool supported = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
    }();
    return supported;
}
// And AVX-512 VBMI and VBMI2 (byte permutations and compression) too.
inline bool cpu_has_avx512_vbmi() noexcept {
    static const bool supported = [] {
        __builtin_cpu_init();
        return cpu_has_avx512() && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2");
    }();
    return supported;
}
}  // namespace detail
}  // namespace simhash
#endif
