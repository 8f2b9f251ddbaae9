/**
 * Kinds the simulated cluster reads that the runtime's built-in Kind values
 * do not cover yet (ResourceQuotas, HorizontalPodAutoscalers,
 * CertificateSigningRequests).
 */
import { defineKind, type Typed } from '@operant/runtime';
import type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';
import type * as certificatesv1 from 'kubernetes-types/certificates/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';

/** A core/v1 ResourceQuota. */
export type ResourceQuotaObject = Typed<corev1.ResourceQuota>;
/** An autoscaling/v2 HorizontalPodAutoscaler. */
export type HorizontalPodAutoscalerObject = Typed<autoscalingv2.HorizontalPodAutoscaler>;

export const ResourceQuota = defineKind<ResourceQuotaObject>({ group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', namespaced: true });
export const HorizontalPodAutoscaler = defineKind<HorizontalPodAutoscalerObject>({
  group: 'autoscaling',
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  namespaced: true,
});

/** A certificates.k8s.io/v1 CertificateSigningRequest. */
export type CertificateSigningRequestObject = Typed<certificatesv1.CertificateSigningRequest>;

export const CertificateSigningRequest = defineKind<CertificateSigningRequestObject>({
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  namespaced: false,
});
