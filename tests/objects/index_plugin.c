/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/index_plugin.c - a plugin whose site table is not in address
 * order: 2 x 500 sites of the program's key ski_late (index.c).
 */
#include <statickeys.h>

#include "index_sites.h"

SKI_UNSORTED_SITES(ski_plugin_sites, ski_late, 500);
