/**
 * Authentication: who a request is made by (client certificates, the admin token, ServiceAccount
 * tokens, anonymous), impersonation, and the TokenRequest, TokenReview and SelfSubjectReview APIs.
 */
export * from './user-info.js';
export * from './service-account-tokens.js';
export * from './authenticator.js';
export * from './impersonation.js';
export * from './self-subject-review.js';
