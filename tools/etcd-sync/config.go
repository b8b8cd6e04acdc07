// SPDX-License-Identifier: MIT OR Apache-2.0

package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// configFromEnv reads the variables etcdctl reads, so that one set-up
// serves both: ETCDCTL_ENDPOINTS, ETCDCTL_CACERT, ETCDCTL_CERT,
// ETCDCTL_KEY, ETCDCTL_USER and ETCDCTL_PASSWORD.
func configFromEnv() (clientv3.Config, error) {
	cfg := clientv3.Config{
		Endpoints:   []string{"127.0.0.1:2379"},
		DialTimeout: 0, // never block in New: load() retries
		// Reconnect within seconds of etcd coming back (gRPC's default
		// waits up to 2 minutes between attempts).
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{BaseDelay: 100 * time.Millisecond,
				Multiplier: 1.6, Jitter: 0.2, MaxDelay: maxBackoff},
			MinConnectTimeout: 2 * time.Second,
		})},
		// The client's own JSON logs would repeat every retry; what an
		// operator needs is said once by this program (logf).
		Logger:               zap.NewNop(),
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 5 * time.Second,
	}
	if e := os.Getenv("ETCDCTL_ENDPOINTS"); e != "" {
		cfg.Endpoints = strings.Split(e, ",")
	}
	if u := os.Getenv("ETCDCTL_USER"); u != "" {
		cfg.Username, cfg.Password, _ = strings.Cut(u, ":")
		if p := os.Getenv("ETCDCTL_PASSWORD"); p != "" {
			cfg.Password = p
		}
	}
	ca, cert, key := os.Getenv("ETCDCTL_CACERT"), os.Getenv("ETCDCTL_CERT"),
		os.Getenv("ETCDCTL_KEY")
	if ca == "" && cert == "" && key == "" {
		return cfg, nil
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return cfg, fmt.Errorf("ETCDCTL_CACERT: %w", err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return cfg, fmt.Errorf("ETCDCTL_CACERT: %s holds no PEM certificate", ca)
		}
	}
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return cfg, fmt.Errorf("ETCDCTL_CERT, ETCDCTL_KEY: %w", err)
		}
		t.Certificates = []tls.Certificate{pair}
	}
	cfg.TLS = t
	return cfg, nil
}
