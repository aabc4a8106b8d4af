// Package aws reads the access logs of AWS's load balancers and CDN: the
// Application Load Balancer's and the Classic Load Balancer's
// (space-separated, some fields quoted) and CloudFront's standard log (W3C,
// tab-separated). One canonical row per entry.
package aws

import "github.com/rewind-dev/rewind/ingest/record"

// ALB is an Application Load Balancer's access log as a record.Format.
type ALB struct{}

func (ALB) Name() string                         { return ALBName }
func (ALB) About() string                        { return "AWS Application Load Balancer access logs" }
func (ALB) Detect(name string, head []byte) bool { return detectAWSALB(name, head) }
func (ALB) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeAWSALB(in, out)
}

// ELB is a Classic Load Balancer's access log as a record.Format.
type ELB struct{}

func (ELB) Name() string                         { return ELBName }
func (ELB) About() string                        { return "AWS Classic Load Balancer access logs" }
func (ELB) Detect(name string, head []byte) bool { return detectAWSELB(name, head) }
func (ELB) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeAWSELB(in, out)
}

// CloudFront is CloudFront's standard access log as a record.Format.
type CloudFront struct{}

func (CloudFront) Name() string { return CloudFrontName }
func (CloudFront) About() string {
	return "Amazon CloudFront standard access logs (W3C, tab-separated)"
}
func (CloudFront) Detect(name string, head []byte) bool { return detectCloudFront(name, head) }
func (CloudFront) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	return decodeCloudFront(in, out)
}
