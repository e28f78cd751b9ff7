package execution

import "time"

// DefaultWait is the bounded wait of a submit, wait or MCP tool call when
// neither the request nor agent.tool_wait_timeout_seconds says otherwise:
// one constant so that the REST API, the MCP server, the gateway and the
// config defaults cannot drift apart.
const DefaultWait = 30 * time.Second
