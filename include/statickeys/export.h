/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/export.h - symbol visibility for the library's public API.
 *
 * The library is built with hidden visibility by default; only symbols marked
 * SK_API are exported (and listed in src/arch/x86_64/libstatickeys.map);
 * on Windows, the DLL exports the SK_API functions alone.
 */
#ifndef STATICKEYS_EXPORT_H
#define STATICKEYS_EXPORT_H

#if defined(SK_BUILDING_LIBRARY) && defined(_WIN32)
/* PE exports what is marked dllexport (and then nothing else). */
#define SK_API __declspec(dllexport)
#elif defined(SK_BUILDING_LIBRARY)
#define SK_API __attribute__((visibility("default")))
#else
#define SK_API
#endif

/*
 * The casts the headers' macros and inline functions make, expanded in the
 * users' files: C++'s named casts in C++ (no -Wold-style-cast), C's casts
 * in C, and between a function pointer and void * (what POSIX's dlsym
 * guarantees, ISO C does not) marked __extension__ (no -Wpedantic).
 *   SK__FN_PTR(x)      a function pointer (or 0) as void *
 *   SK__TO_FN(T, x)    a void * as function pointer type T
 *   SK__FN_CAST(T, x)  a function pointer as another function pointer type
 */
#ifdef __cplusplus
#define SK__FN_PTR(x) (reinterpret_cast<void *>(x))
#define SK__TO_FN(T, x) (reinterpret_cast<T>(x))
#define SK__FN_CAST(T, x) (reinterpret_cast<T>(reinterpret_cast<void *>(x)))
#else
#define SK__FN_PTR(x) (__extension__((void *)(x)))
#define SK__TO_FN(T, x) (__extension__((T)(x)))
#define SK__FN_CAST(T, x) (__extension__((T)(void *)(x)))
#endif

#endif /* STATICKEYS_EXPORT_H */
