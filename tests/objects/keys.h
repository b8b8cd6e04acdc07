/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/keys.h - declarations of the keys that cross objects.
 *
 * Included by every file that holds sites; plugin_ctor.c deliberately does
 * not include it (see there).
 */
#ifndef SKO_KEYS_H
#define SKO_KEYS_H

#include <statickeys.h>

#include "objects.h"

SK_DECLARE_KEY_FALSE(exe_key_false); /* defined in the program */
SK_DECLARE_KEY_TRUE(exe_key_true);
SK_DECLARE_KEY_FALSE(lib_key_false); /* defined in libsko_a.so */
SK_DECLARE_KEY_TRUE(lib_key_true);
SK_DECLARE_KEY_FALSE(plugin_key); /* defined in each sko_plugin*.so */

#endif /* SKO_KEYS_H */
