package engine

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"sync"
	"time"

	"github.com/apache/spark-connect-go/spark/client/channel"
	"golang.org/x/oauth2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/credentials/oauth"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// The client's SparkSession.Stop does nothing: the server keeps each
// session (its views, its plans) until it has been idle for its timeout
// (an hour by default), and the gRPC connection stays open. A command that
// opens a session per run leaves one behind each time, and a test suite
// leaves thousands: they filled a 1.5 GB Connect driver here. keeper is the
// client's channel builder with what Close needs added: it keeps the
// connection it dials, and notes the session id, the user context and the
// headers the client sends, so that release can send ReleaseSession (a
// request the client defines but never sends) and close the connection.
type keeper struct {
	*channel.BaseBuilder
	conn *grpc.ClientConn

	mu      sync.Mutex
	session string
	user    protoreflect.Message
	md      metadata.MD
}

// Build dials as the client's BaseBuilder.Build does (TLS and a bearer
// token when the URL has a token, else plain), with interceptors that note
// the session.
func (k *keeper) Build(ctx context.Context) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithAuthority(k.Host()),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			k.note(ctx, req)
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			cs, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil {
				return nil, err
			}
			return &notingStream{ClientStream: cs, k: k, ctx: ctx}, nil
		}),
	}
	if k.Token() == "" {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	} else {
		roots, err := x509.SystemCertPool()
		if err != nil {
			return nil, err
		}
		opts = append(opts,
			grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots})),
			grpc.WithPerRPCCredentials(oauth.TokenSource{TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: k.Token(), TokenType: "bearer"})}))
	}
	conn, err := grpc.NewClient(fmt.Sprintf("%v:%v", k.Host(), k.Port()), opts...)
	if err != nil {
		return nil, err
	}
	k.conn = conn
	return conn, nil
}

// notingStream notes the session of the requests sent on a stream
// (ExecutePlan's).
type notingStream struct {
	grpc.ClientStream
	k   *keeper
	ctx context.Context
}

func (s *notingStream) SendMsg(m any) error {
	s.k.note(s.ctx, m)
	return s.ClientStream.SendMsg(m)
}

// note keeps the session id and user context of the first request that
// has them (every request of a session carries the same), and its headers.
func (k *keeper) note(ctx context.Context, req any) {
	m, ok := req.(proto.Message)
	if !ok {
		return
	}
	r := m.ProtoReflect()
	id, user := r.Descriptor().Fields().ByName("session_id"), r.Descriptor().Fields().ByName("user_context")
	if id == nil || user == nil || id.Kind() != protoreflect.StringKind {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.session != "" || r.Get(id).String() == "" {
		return
	}
	k.session = r.Get(id).String()
	if r.Has(user) {
		k.user = r.Get(user).Message()
	}
	k.md, _ = metadata.FromOutgoingContext(ctx)
}

// release asks the server to drop the session (ReleaseSession, Spark
// 3.5+; a server that answers Unimplemented drops it at its timeout), then
// closes the connection. It waits at most 10 s: a server that is gone does
// not hold a command at its end.
func (k *keeper) release() error {
	if k.conn == nil {
		return nil
	}
	defer k.conn.Close()
	_, err := k.call("ReleaseSession", nil)
	return err
}

// call sends the session's request of method (a SparkConnectService RPC
// the client defines but does not send) with its session id and user
// context, and set's fields, in at most 10 s. It returns the response, or
// nil when no request was sent yet (the server has no session).
func (k *keeper) call(method string, set func(req protoreflect.Message)) (protoreflect.Message, error) {
	k.mu.Lock()
	id, user, md := k.session, k.user, k.md
	k.mu.Unlock()
	if id == "" || k.conn == nil {
		return nil, nil
	}
	reqType, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName("spark.connect." + method + "Request"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	respType, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName("spark.connect." + method + "Response"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	req := reqType.New()
	fields := req.Descriptor().Fields()
	req.Set(fields.ByName("session_id"), protoreflect.ValueOfString(id))
	if user != nil {
		req.Set(fields.ByName("user_context"), protoreflect.ValueOfMessage(user))
	}
	if set != nil {
		set(req)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if md != nil {
		ctx = metadata.NewOutgoingContext(ctx, md)
	}
	resp := respType.New()
	err = k.conn.Invoke(ctx, "/spark.connect.SparkConnectService/"+method, req.Interface(), resp.Interface())
	return resp, err
}
