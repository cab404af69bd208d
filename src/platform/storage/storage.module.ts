import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { LocalObjectStorage } from './local-object-storage';
import { ObjectStorage } from './object-storage';

async function createStorage(config: AppConfig): Promise<ObjectStorage> {
  if (config.storageBackend === 's3' && config.s3) {
    // Loaded only for this backend: the AWS SDK is large, and local deployments never need it.
    const { S3ObjectStorage } = await import('./s3-object-storage.js');
    return new S3ObjectStorage(config.s3);
  }
  return new LocalObjectStorage(join(config.dataDir, 'objects'));
}

/** The configured object storage (STORAGE_BACKEND), for modules that keep files. */
@Global()
@Module({
  providers: [{ provide: ObjectStorage, inject: [APP_CONFIG], useFactory: createStorage }],
  exports: [ObjectStorage],
})
export class StorageModule implements OnApplicationShutdown {
  constructor(@Inject(ObjectStorage) private readonly storage: ObjectStorage) {}

  onApplicationShutdown(): void {
    (this.storage as { onShutdown?: () => void }).onShutdown?.();
  }
}
