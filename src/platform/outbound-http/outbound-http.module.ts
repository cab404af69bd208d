import { DynamicModule, Global, Module } from '@nestjs/common';
import { HOST_RESOLVER, HostResolver, systemResolver } from './host-resolver';
import { OutboundPolicy } from './outbound-policy.service';
import { SafeHttpClient } from './safe-http.client';

/** The outbound policy and the SSRF-safe client, for every module (global). */
@Global()
@Module({})
export class OutboundHttpModule {
  /** `resolver` replaces DNS (tests resolve their own names to chosen addresses). */
  static forRoot(resolver: HostResolver = systemResolver): DynamicModule {
    return {
      module: OutboundHttpModule,
      global: true,
      providers: [{ provide: HOST_RESOLVER, useValue: resolver }, OutboundPolicy, SafeHttpClient],
      exports: [OutboundPolicy, SafeHttpClient],
    };
  }
}
