// SPDX-License-Identifier: MIT OR Apache-2.0

// statickeys-etcd-sync PREFIX FILE keeps FILE, a STATICKEYS_FILE, equal to
// the etcd keys under PREFIX: etcd is the source of truth for a fleet, and
// every program that runs with STATICKEYS_FILE=FILE follows it.
//
//	etcdctl put /statickeys/tracing 1      ->  FILE gets "tracing = 1"
//	etcdctl put /statickeys/skdemo:shout 0 ->  FILE gets "skdemo:shout = 0"
//
// One copy runs on each host (a systemd unit, or a sidecar).  It reads the
// prefix once, then follows it with etcd's own watch from the revision it
// read: no change is missed between the two, and an etcd restart or a lost
// connection is resumed from the last revision seen (the client library
// reconnects by itself).  FILE is written again only when its text changes,
// as a new file in FILE's directory renamed over FILE, so a program never
// reads half of one; the text carries no revision, so a put rewrites only
// the line of the key it names, and each program then changes exactly that
// key (a program applies only the lines that changed).
//
// A key or value that cannot be one "name = value" line (a newline, a
// control byte, a blank or '=' in the name) is refused alone: it is left
// out of FILE with one message naming the etcd key, and the programs keep
// that key's state.  Whether a value is 0/1, on/off, ... is decided by the
// programs, with the runtime's one parser (they refuse such a version and
// name its line).  A key deleted from etcd leaves FILE without its line;
// programs keep that key's state (as sysctl.d does).
//
// Started while etcd is unreachable, it retries with back-off (100 ms
// doubling to 10 s) and leaves FILE as it is; it never leaves a temporary
// file behind.  SIGINT or SIGTERM stops it.  etcd is reached as etcdctl
// reaches it: ETCDCTL_ENDPOINTS (comma-separated, default 127.0.0.1:2379),
// ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY, ETCDCTL_USER (user or
// user:password) and ETCDCTL_PASSWORD.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

const (
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 10 * time.Second
	getTimeout   = 5 * time.Second
)

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "statickeys-etcd-sync: "+format+"\n", args...)
}

func main() {
	if len(os.Args) != 3 || os.Args[1] == "" || os.Args[2] == "" {
		fmt.Fprintln(os.Stderr, "usage: statickeys-etcd-sync PREFIX FILE")
		os.Exit(2)
	}
	prefix, file := os.Args[1], os.Args[2]
	cfg, err := configFromEnv()
	if err != nil {
		logf("%v", err)
		os.Exit(2)
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		logf("%v", err)
		os.Exit(1)
	}
	defer cli.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT,
		syscall.SIGTERM)
	defer stop()
	s := &syncer{cli: cli, prefix: prefix, out: newWriter(file)}
	s.run(ctx)
}

// syncer follows one prefix into one file.
type syncer struct {
	cli    *clientv3.Client
	prefix string
	out    *writer
	keys   map[string][]byte // the prefix's keys as last seen, whole names
}

// run reads the prefix, writes the file and follows the changes until ctx
// ends; any failure starts over from a new read after a back-off.
func (s *syncer) run(ctx context.Context) {
	backoff := firstBackoff
	down := false
	for ctx.Err() == nil {
		rev, err := s.load(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !down {
				logf("etcd at %s unreachable (%v); %s keeps its "+
					"version, retrying with back-off",
					strings.Join(s.cli.Endpoints(), ","), err, s.out.path)
				down = true
			}
			sleep(ctx, backoff)
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		if down {
			logf("etcd reached again; %s written from revision %d",
				s.out.path, rev)
			down = false
		}
		backoff = firstBackoff
		if err := s.follow(ctx, rev); err != nil && ctx.Err() == nil {
			logf("watch ended (%v); reading %s again", err, s.prefix)
			sleep(ctx, backoff)
		}
	}
}

// load reads every key under the prefix, writes the file from them and
// returns the revision they are at.
func (s *syncer) load(ctx context.Context) (int64, error) {
	gctx, cancel := context.WithTimeout(ctx, getTimeout)
	defer cancel()
	resp, err := s.cli.Get(gctx, s.prefix, clientv3.WithPrefix())
	if err != nil {
		return 0, err
	}
	s.keys = make(map[string][]byte, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		s.keys[string(kv.Key)] = kv.Value
	}
	return resp.Header.Revision, s.write()
}

// follow applies the watch's events from revision rev+1 on, writing the
// file after each response (one response holds one transaction's events).
func (s *syncer) follow(ctx context.Context, rev int64) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for wr := range s.cli.Watch(wctx, s.prefix, clientv3.WithPrefix(),
		clientv3.WithRev(rev+1)) {
		if err := wr.Err(); err != nil {
			return err // compacted past rev, no leader, ...: read again
		}
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypeDelete {
				delete(s.keys, string(ev.Kv.Key))
			} else {
				s.keys[string(ev.Kv.Key)] = ev.Kv.Value
			}
		}
		if err := s.write(); err != nil {
			return err
		}
	}
	return errors.New("the watch was closed")
}

func (s *syncer) write() error {
	err := s.out.write(s.prefix, s.keys)
	if err != nil {
		logf("%v", err)
	}
	return err
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
