/**
 * Caps the frames a stack trace captures in Baton's workflow sandbox (decision 0029). Preloaded
 * (STACK_TRACE_LIMIT_MODULES), so it runs before the SDK freezes the sandbox's built-ins.
 *
 * 👉 The SDK takes a source-mapped stack trace of every promise a workflow makes, to answer the
 * `__stack_trace` query; no option turns it off (temporalio/sdk-typescript#1587). Its cost grows
 * with the frames taken, and the innermost ones say where a workflow waits.
 */
export const WORKFLOW_STACK_FRAMES = 4;

Error.stackTraceLimit = WORKFLOW_STACK_FRAMES;
