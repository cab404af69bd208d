import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import {
  APP_CONFIG,
  AppConfig,
  LOCAL_HASHING_MODEL,
  localModelNameRefusal,
} from '../../../config/app.config';
import { MalformedModel } from './safetensors';
import { ModelShape, readModelShape, StaticEmbeddingModel } from './static-embedding-model';

export type LocalRuntimeStatus = 'idle' | 'warming' | 'ready' | 'failed';

/** A `model_name` the local provider cannot use; the message is for the person configuring it. */
export class LocalModelRefused extends Error {
  override readonly name = 'LocalModelRefused';
}

/** The model this process holds (or is loading, or failed to load). */
interface Slot {
  name: string;
  status: Exclude<LocalRuntimeStatus, 'idle'>;
  error: string | null;
  loading: Promise<StaticEmbeddingModel>;
}

/**
 * Model2Vec models from subdirectories of EMBEDDING_LOCAL_MODELS_DIR for the
 * `local` provider. One model is held per process, loaded in the background
 * (asynchronous reads, the table kept as one Float32Array) and reused; a
 * configuration naming another model replaces it. A failed load stays failed
 * (embedding calls fail fast) until `warm(name, { retry: true })`: a
 * configuration write or a test-embedding call.
 */
@Injectable()
export class LocalModelsService implements OnModuleInit {
  private readonly logger = new Logger(LocalModelsService.name);
  private slot: Slot | null = null;
  /** The environment model's size when EMBEDDING_DIMENSIONS leaves it to the model. */
  private environmentDimensions: number | null = null;

  constructor(@Inject(APP_CONFIG) private readonly app: AppConfig) {}

  /** An environment configuration naming a model directory is checked at start: a bad one stops the server. */
  async onModuleInit(): Promise<void> {
    const env = this.app.embeddings;
    if (env.provider !== 'local' || isBuiltinModel(env.model)) return;
    let shape: ModelShape;
    try {
      shape = await this.inspect(env.model);
    } catch (error) {
      throw new Error(`EMBEDDING_MODEL: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    if (shape.dimensions < 8 || shape.dimensions > 2000) {
      throw new Error(
        `EMBEDDING_MODEL: the model "${env.model}" makes vectors of ${shape.dimensions} dimensions; 8 to 2000 are supported.`,
      );
    }
    if (env.dimensions !== null && env.dimensions !== shape.dimensions) {
      throw new Error(
        `EMBEDDING_DIMENSIONS is ${env.dimensions} but the model "${env.model}" makes vectors of ${shape.dimensions}.`,
      );
    }
    this.environmentDimensions = shape.dimensions;
  }

  /** The vector size of the environment configuration's local model (EMBEDDING_DIMENSIONS, else the directory model's, else the built-in default). */
  dimensionsOfEnvironment(fallback: number): number {
    return this.app.embeddings.dimensions ?? this.environmentDimensions ?? fallback;
  }

  /**
   * The directory of a model name under the models root; refuses anything but
   * a plain directory name of an existing directory there.
   */
  async directoryOf(name: string): Promise<string> {
    const root = this.app.embeddings.localModelsDir;
    if (!root) {
      throw new LocalModelRefused(
        `"${name}" is not the built-in ${LOCAL_HASHING_MODEL} and EMBEDDING_LOCAL_MODELS_DIR is not set, so no model directory can be used.`,
      );
    }
    const refusal = localModelNameRefusal(name);
    if (refusal) throw new LocalModelRefused(refusal);
    const directory = join(root, name);
    const found = await stat(directory).catch(() => null);
    if (!found?.isDirectory()) {
      throw new LocalModelRefused(`No model directory "${name}" in EMBEDDING_LOCAL_MODELS_DIR.`);
    }
    return directory;
  }

  /** The model's vocabulary size and dimensions from its header (cheap: the tensors are not read). */
  async inspect(name: string): Promise<ModelShape> {
    const directory = await this.directoryOf(name);
    try {
      return await readModelShape(directory);
    } catch (error) {
      if (error instanceof MalformedModel)
        throw new LocalModelRefused(`The model "${name}": ${error.message}`);
      throw error;
    }
  }

  /** This process's state for the named model: `idle` until it is asked for. */
  state(name: string): { status: LocalRuntimeStatus; error: string | null } {
    const slot = this.slot;
    if (!slot || slot.name !== name) return { status: 'idle', error: null };
    return { status: slot.status, error: slot.error };
  }

  /** Starts loading the named model in the background unless it is held already (or, with `retry`, reloads a failed one). */
  warm(name: string, options: { retry?: boolean } = {}): Promise<StaticEmbeddingModel> {
    const current = this.slot;
    if (current && current.name === name && !(options.retry && current.status === 'failed')) {
      return current.loading;
    }
    const slot: Slot = { name, status: 'warming', error: null, loading: this.load(name) };
    this.slot = slot;
    slot.loading.then(
      () => {
        if (this.slot !== slot) return;
        slot.status = 'ready';
        this.logger.log(`Local embedding model "${name}" loaded.`);
      },
      (error: unknown) => {
        if (this.slot !== slot) return;
        slot.status = 'failed';
        slot.error = error instanceof Error ? error.message : String(error);
        this.logger.warn(`Local embedding model "${name}" failed to load: ${slot.error}`);
      },
    );
    return slot.loading;
  }

  private async load(name: string): Promise<StaticEmbeddingModel> {
    const directory = await this.directoryOf(name);
    return StaticEmbeddingModel.load(directory);
  }
}

export function isBuiltinModel(name: string): boolean {
  return name === LOCAL_HASHING_MODEL;
}
