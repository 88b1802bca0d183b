/**
 * `restaurant-partner-sdk/otel`: OpenTelemetry traces and metrics from the SDK's diagnostics channels.
 * @module
 */
export {};
