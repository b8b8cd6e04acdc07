/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/objects.h - the keys and probes shared by the test objects.
 *
 * The objects built for these tests:
 *   the test program   defines exe_key_false / exe_key_true (exe_keys.c)
 *   libsko_a.so        defines lib_key_false / lib_key_true (lib_a.c)
 *   libsko_b.so        links libsko_a.so, defines no key (lib_b.c)
 *   sko_plugin*.so     dlopen'd, defines plugin_key (plugin.c), runs its
 *                      sites from a constructor (plugin_ctor.c)
 *   sko_user*.so       dlopen'd, uses plugin_key of another plugin
 *   sko_flipper.so     flips exe_key_false from its constructor/destructor
 *   sko_weak.so        has sites of an undefined weak key
 *   sko_unload_mark.so tells the program when its destructors start
 *   sko_plugin_cxx.so  runs sites from a C++ static initialiser
 *
 * Every object has a probe: probe(id) evaluates one likely and one unlikely
 * site of key @id *in that object* and returns PROBE_ON when both say the
 * key is on, PROBE_OFF when both say off, anything else when they disagree,
 * and PROBE_NONE when the object has no site of that key.
 */
#ifndef SKO_OBJECTS_H
#define SKO_OBJECTS_H

enum sko_key_id {
	SKO_EXE_FALSE,
	SKO_EXE_TRUE,
	SKO_LIB_FALSE,
	SKO_LIB_TRUE,
	SKO_PLUGIN,
	SKO_NKEYS
};

#define PROBE_OFF 0u
#define PROBE_ON 3u
#define PROBE_NONE 0xffu

/* One likely and one unlikely site of @key, as a two-bit direction. */
#define SKO_SITES(key)                                                       \
	((sk_branch_likely(&(key)) ? 1u : 0u) |                              \
	 (sk_branch_unlikely(&(key)) ? 2u : 0u))

#ifdef __cplusplus
extern "C" {
#endif

const char *sko_key_name(int id);

/* Probes of the program, libsko_a, libsko_b (all present at start-up). */
unsigned sko_exe_probe(int id);
unsigned sko_lib_a_probe(int id);
unsigned sko_lib_b_probe(int id);

/* In every plugin (looked up with dlsym): its probe, and what the probe
 * said from the plugin's own constructor, before dlopen returned. */
typedef unsigned (*sko_probe_fn)(int id);
#define SKO_PLUGIN_PROBE "sko_plugin_probe"
#define SKO_PLUGIN_CTOR_SEEN "sko_plugin_ctor_seen"

#ifdef __cplusplus
}
#endif

#endif /* SKO_OBJECTS_H */
