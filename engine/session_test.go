package engine

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Close releases the session on the server: a request in its name is
// answered before Close and refused as closed after it (the client's own
// Stop left it there for the server's idle timeout).
func TestCloseReleasesSession(t *testing.T) {
	ctx := context.Background()
	url := sparkURL(t)
	s, err := OpenSpark(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.exec(ctx, "CREATE OR REPLACE TEMPORARY VIEW kept AS SELECT 1 AS one"); err != nil {
		t.Fatal(err)
	}
	s.keeper.mu.Lock()
	id, user, md := s.keeper.session, s.keeper.user, s.keeper.md
	s.keeper.mu.Unlock()
	if id == "" {
		t.Fatal("no session id noted from the client's requests")
	}
	conn, err := grpc.NewClient(strings.TrimPrefix(url, "sc://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// getAll asks the server for the session's settings in its name.
	getAll := func() error {
		rt, err := protoregistry.GlobalTypes.FindMessageByName("spark.connect.ConfigRequest")
		if err != nil {
			t.Fatal(err)
		}
		resp, err := protoregistry.GlobalTypes.FindMessageByName("spark.connect.ConfigResponse")
		if err != nil {
			t.Fatal(err)
		}
		req := rt.New()
		f := req.Descriptor().Fields()
		req.Set(f.ByName("session_id"), protoreflect.ValueOfString(id))
		req.Set(f.ByName("user_context"), protoreflect.ValueOfMessage(user))
		op := req.Mutable(f.ByName("operation")).Message()
		op.Mutable(op.Descriptor().Fields().ByName("get_all"))
		return conn.Invoke(metadata.NewOutgoingContext(ctx, md), "/spark.connect.SparkConnectService/Config", req.Interface(), resp.New().Interface())
	}
	if err := getAll(); err != nil {
		t.Fatalf("before Close, the session's settings: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	err = getAll()
	if err == nil || !strings.Contains(err.Error(), "SESSION_CLOSED") {
		t.Fatalf("after Close, a request in the session's name: %v, want it refused as SESSION_CLOSED", err)
	}
}
