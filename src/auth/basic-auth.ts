/** HTTP Basic client authentication for OAuth 2.0 (RFC 6749 §2.3.1): each part form-encoded first. */
export const basicAuthorization = (clientId: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
