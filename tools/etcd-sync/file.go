// SPDX-License-Identifier: MIT OR Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// writer owns FILE: it writes a new version only when the text changes,
// and says once per key and value why a key is left out.
type writer struct {
	path    string
	last    []byte            // the text last written (or found)
	refused map[string]string // etcd key -> the value said to be refused
}

func newWriter(path string) *writer {
	w := &writer{path: path, refused: map[string]string{}}
	w.last, _ = os.ReadFile(path) // unchanged text is not written again
	return w
}

// badName says why name cannot be a key name in the file, or "".  The
// runtime's rule: printable ASCII without blanks or '=', at most 512 bytes.
func badName(name string) string {
	if name == "" {
		return "the key name after the prefix is empty"
	}
	if len(name) > 512 {
		return "the key name is longer than 512 bytes"
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x21 || c > 0x7e || c == '=' {
			return "the key name has a blank, '=' or a non-printable byte"
		}
	}
	return ""
}

// badValue says why value cannot be one line's value, or "".  Whether it
// is one of the words is the programs' to say (one parser, the runtime's).
func badValue(value []byte) string {
	for _, c := range value {
		switch {
		case c == '\n' || c == '\r':
			return "the value has a line break"
		case c < 0x20 || c == 0x7f:
			return "the value has a control byte"
		}
	}
	return ""
}

// text is the file for keys: a comment, then "name = value" lines in name
// order (the same keys give the same bytes, whatever order etcd sent).
func (w *writer) text(prefix string, keys map[string][]byte) []byte {
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# written by statickeys-etcd-sync from the etcd keys under %s\n",
		strings.ReplaceAll(prefix, "\n", "\\n"))
	seen := map[string]bool{}
	for _, k := range names {
		name, value := strings.TrimPrefix(k, prefix), keys[k]
		why := badName(name)
		if why == "" {
			why = badValue(value)
		}
		if why != "" {
			if w.refused[k] != string(value) {
				logf("%q: %s; left out of %s, the programs keep that key's "+
					"state (value %q)", k, why, w.path, value)
				w.refused[k] = string(value)
			}
			continue
		}
		delete(w.refused, k)
		seen[k] = true
		fmt.Fprintf(&b, "%s = %s\n", name, strings.TrimSpace(string(value)))
	}
	for k := range w.refused { // deleted since: said again if it returns
		if _, ok := keys[k]; !ok {
			delete(w.refused, k)
		}
	}
	return b.Bytes()
}

// write makes FILE hold the keys: a new file in FILE's directory, renamed
// over FILE (a reader sees the old version or the new, never half of
// one); the temporary file is removed on every failure.
func (w *writer) write(prefix string, keys map[string][]byte) error {
	text := w.text(prefix, keys)
	if w.last != nil && bytes.Equal(text, w.last) {
		return nil
	}
	dir := filepath.Dir(w.path)
	tmp, err := os.CreateTemp(dir, ".statickeys-etcd.*")
	if err != nil {
		return fmt.Errorf("%s: cannot write in %s: %w", w.path, dir, err)
	}
	_, err = tmp.Write(text)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), w.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", w.path, err)
	}
	w.last = text
	return nil
}
