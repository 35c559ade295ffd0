/** The server's version, reported by `--version` and in the MCP handshake. */
export const VERSION = "0.1.0";
