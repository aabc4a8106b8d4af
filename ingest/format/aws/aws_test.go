package aws_test

import (
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/aws"
	"github.com/rewind-dev/rewind/ingest/formattest"
)

var (
	albSuite        = formattest.Suite{Format: aws.ALB{}, Dir: "testdata/aws-alb", Real: "../../testdata/real/aws-alb"}
	elbSuite        = formattest.Suite{Format: aws.ELB{}, Dir: "testdata/aws-elb", Real: "../../testdata/real/aws-elb"}
	cloudFrontSuite = formattest.Suite{Format: aws.CloudFront{}, Dir: "testdata/cloudfront", Real: "../../testdata/real/cloudfront"}
)

func TestALBContract(t *testing.T)        { formattest.Run(t, albSuite) }
func TestELBContract(t *testing.T)        { formattest.Run(t, elbSuite) }
func TestCloudFrontContract(t *testing.T) { formattest.Run(t, cloudFrontSuite) }

func FuzzALBDecode(f *testing.F)        { formattest.Fuzz(f, albSuite) }
func FuzzELBDecode(f *testing.F)        { formattest.Fuzz(f, elbSuite) }
func FuzzCloudFrontDecode(f *testing.F) { formattest.Fuzz(f, cloudFrontSuite) }
