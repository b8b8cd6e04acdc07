/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* tests/trace/plugin.c - a dlopen'ed plugin that defines tracepoint
 * sktplug:ev and fires it. */
#include <statickeys/trace.h>

SK_DECLARE_TRACE(sktplug, ev, SK_TP_PROTO(int n), SK_TP_ARGS(n));
SK_DEFINE_TRACE(sktplug, ev, SK_TP_PROTO(int n), SK_TP_ARGS(n));

__attribute__((visibility("default"))) void plugin_fire(int n)
{
	sk_trace_sktplug_ev(n);
}

__attribute__((visibility("default"))) int
plugin_register(void (*probe)(void *, int), void *data)
{
	return sk_register_trace_sktplug_ev(probe, data);
}

__attribute__((visibility("default"))) int
plugin_unregister(void (*probe)(void *, int), void *data)
{
	return sk_unregister_trace_sktplug_ev(probe, data);
}
