import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { toTaskResponse } from './authoring.mapper';
import type { AuthoringTaskResponse, CreateAuthoringTaskDto } from './dto/authoring.dto';
import { AuthoringTask } from './entities/authoring-task.entity';
import { WebSearchEvidence } from './entities/web-search-evidence.entity';

/** Authoring tasks: the unit of the web-search quota, consent scope and evidence. */
@Injectable()
export class AuthoringTasksService {
  constructor(
    @InjectRepository(AuthoringTask) private readonly tasks: Repository<AuthoringTask>,
    private readonly tx: TransactionRunner,
  ) {}

  async create(
    actor: Actor,
    access: SpaceAccess,
    dto: CreateAuthoringTaskDto,
  ): Promise<AuthoringTaskResponse> {
    return this.tx.run(async (em) => {
      const id = randomUUID();
      let rootTaskId: string = id;
      if (dto.parent_task_id) {
        // Locked so the parent cannot be deleted under the child being added.
        const parent = await em.getRepository(AuthoringTask).findOne({
          where: { id: dto.parent_task_id, spaceId: access.space.id },
          lock: { mode: 'pessimistic_read' },
        });
        if (!parent) throw new NotFound('authoring task', dto.parent_task_id);
        rootTaskId = parent.rootTaskId;
      }
      await em.getRepository(AuthoringTask).insert({
        id,
        spaceId: access.space.id,
        title: dto.title,
        definitionId: dto.definition_id ?? null,
        parentTaskId: dto.parent_task_id ?? null,
        rootTaskId,
        delegated: !!dto.parent_task_id,
        createdBy: actor.userId,
      });
      const stored = await em.getRepository(AuthoringTask).findOneByOrFail({ id });
      return toTaskResponse(stored, 0);
    });
  }

  async get(access: SpaceAccess, id: string): Promise<AuthoringTaskResponse> {
    const em = this.tasks.manager;
    const task = await this.require(access.space.id, id, em);
    return toTaskResponse(task, await this.callsUsed(task.id, em));
  }

  /** The task in this space; 404 when it is in another space or does not exist. */
  async require(spaceId: string, id: string, em: EntityManager): Promise<AuthoringTask> {
    const task = await em.getRepository(AuthoringTask).findOneBy({ id, spaceId });
    if (!task) throw new NotFound('authoring task', id);
    return task;
  }

  /** Successful distinct live searches of the task (completed evidence). */
  async callsUsed(taskId: string, em: EntityManager): Promise<number> {
    return em.getRepository(WebSearchEvidence).countBy({ taskId, status: 'complete' });
  }
}
