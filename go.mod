module github.com/proxylint/proxylint

go 1.26

require (
	github.com/fatih/color v1.19.0
	github.com/mattn/go-isatty v0.0.20
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	golang.org/x/sys v0.42.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
