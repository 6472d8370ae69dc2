module karmada-go

go 1.24

require (
	github.com/pulumi/pulumi-kubernetes/sdk/v4 v4.32.0
	github.com/pulumi/pulumi/sdk/v3 v3.248.0
)
