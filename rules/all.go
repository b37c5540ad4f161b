package rules

// all is every rule proxylint has, sorted by ID. A new rule is added here,
// in its own file, with its doc in docs/ID.md and its fixtures in
// fixtures/ID/; TestRuleList checks that the list is sorted and complete.
var all = []*Rule{
	ClientAbortIgnoredBroadly,
	DirectiveNoEffect,
	EnvoyH1UnsafeDrain,
	EnvoyInvalid,
	EnvoyRetryOnUnknown,
	EnvoySyntax,
	EnvoyUnknownExtension,
	GatewayPolicyDropsTimeout,
	GatewayPolicyReplaces,
	InvalidSuppression,
	KeepaliveIdleRace,
	KubeIgnored,
	KubeInvalid,
	KubeSyntax,
	LoadError,
	LogFormatBlind,
	NginxInclude,
	NginxSyntax,
	PassWithoutResolver,
	RetryAmplification,
	RetryTimeoutWrite,
	RetryTriesUnbounded,
	SetHeaderDropsInherited,
	TimeoutBudgetInverted,
	TimeoutEqualAdjacent,
	UnusedSuppression,
	UpstreamNoKeepalive,
}
