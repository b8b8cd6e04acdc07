#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# links.sh SRC_DIR - every relative link and image of the README and of
# docs/*.md names a file or directory of the tree (a checkout has no
# bench/out/: the benchmark's outputs are named in code spans, not linked).
# Web addresses and in-page anchors are not checked; a link's #fragment is
# dropped before the file is looked for.
set -u
src=$1
bad=0 checked=0
for md in "$src"/README.md "$src"/docs/*.md "$src"/rust/statickeys/README.md; do
	[ -f "$md" ] || continue
	dir=$(dirname "$md")
	# ](target) and ](target "title"), one per line.
	while IFS= read -r link; do
		link=${link%% *}
		link=${link%%#*}
		case $link in ''|http://*|https://*|mailto:*) continue ;; esac
		checked=$((checked + 1))
		if [ ! -e "$dir/$link" ]; then
			echo "BROKEN ${md#"$src"/}: $link"
			bad=$((bad + 1))
		fi
	done < <(grep -oE '\]\([^)]+\)' "$md" | sed -E 's/^\]\(//; s/\)$//')
done
echo "$checked links checked: $((checked - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
