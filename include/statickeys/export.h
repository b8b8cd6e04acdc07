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

#endif /* STATICKEYS_EXPORT_H */
