//go:build ignore

// Writes one request log line per request with zerolog and logrus, in
// their default JSON shapes, as a service would: the line is written when
// the request ends, with its duration.
package main

import (
	"os"
	"time"

	"github.com/rs/zerolog"
	"github.com/sirupsen/logrus"
)

func main() {
	zf, _ := os.Create("zerolog.log")
	zerolog.TimeFieldFormat = time.RFC3339Nano
	zl := zerolog.New(zf).With().Timestamp().Logger()
	lf, _ := os.Create("logrus.log")
	lr := logrus.New()
	lr.SetOutput(lf)
	lr.SetFormatter(&logrus.JSONFormatter{TimestampFormat: time.RFC3339Nano})
	for i := 0; i < 20; i++ {
		start := time.Now()
		d := time.Duration(3+i%7) * time.Millisecond
		time.Sleep(d)
		status := 200
		if i%5 == 4 {
			status = 503
		}
		el := time.Since(start)
		zl.Info().Str("method", "GET").Str("path", "/work").Int("status", status).Dur("elapsed", el).Str("start", start.Format(time.RFC3339Nano)).Msg("request")
		lr.WithFields(logrus.Fields{"method": "GET", "path": "/work", "status": status, "duration_ms": float64(el.Microseconds()) / 1000, "start": start.Format(time.RFC3339Nano)}).Info("request")
	}
}
