/**
 * Conversion webhooks: hub-and-spoke conversions per kind and the handler that
 * answers the API server's ConversionReviews with them.
 */
export { conversionHandler } from './handler.js';
export { ConversionError, defineConversion, KindConversion, type ConversionRegistration, type SpokeConversion, type VersionedKind } from './hub.js';
export { conversionReviewVersions, type ConversionRequest, type ConversionResponse, type ConversionReview } from './review.js';
