import { SetMetadata } from '@nestjs/common';

export const CONTROL_PLANE = 'verity:control-plane';

/**
 * The route works on the control plane (accounts, API keys, SSO, the
 * instance registry, global configuration): it uses the deployment database
 * whichever instance the caller's credential is for, and keeps working while
 * that instance's database is down.
 */
export const ControlPlane = () => SetMetadata(CONTROL_PLANE, true);
