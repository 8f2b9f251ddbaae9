/**
 * AdmissionReview (admission.k8s.io/v1 and v1beta1) as it travels: the wire
 * types live in @operant/apimachinery, where the API server reads them too.
 */
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionStatus,
  AdmissionUserInfo,
} from '@operant/apimachinery';
