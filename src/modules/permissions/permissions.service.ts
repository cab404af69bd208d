import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { ValidationFailed } from '../../common/errors/domain-error';
import { TransactionRunner } from '../../database/transaction-runner';
import { AuditService } from '../../platform/audit/audit.service';
import { ProductsService } from '../catalog/products.service';
import { MembersService } from '../spaces/members.service';
import { SpacesService } from '../spaces/spaces.service';
import { UsersService } from '../users/users.service';
import {
  ImportPermissionsDto,
  PermissionsDocumentResponse,
  PermissionsImportResponse,
} from './dto/permissions.dto';
import {
  CurrentState,
  DOCUMENT_VERSION,
  PermissionsDocument,
  planImport,
  productRoleKey,
  ProductRoleName,
  readDocument,
  SpaceRole,
} from './permissions-plan';

/** Permissions as a document: export, and a validated, all-or-nothing import. */
@Injectable()
export class PermissionsService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly spaces: SpacesService,
    private readonly members: MembersService,
    private readonly products: ProductsService,
    private readonly audit: AuditService,
  ) {}

  async export(_actor: Actor): Promise<PermissionsDocumentResponse> {
    return this.tx.run(async (em) => {
      const spaces = await this.spaces.summaries(em);
      const memberships = new Map<string, { userId: string; role: SpaceRole }[]>();
      for (const space of spaces) memberships.set(space.id, await this.members.membersOf(em, space.id));
      const roles = await this.products.governanceRolesIn(em, null);
      const userIds = new Set([
        ...[...memberships.values()].flat().map((m) => m.userId),
        ...roles.map((r) => r.userId),
      ]);
      const emails = new Map((await this.users.findByIds([...userIds], em)).map((u) => [u.id, u.email]));
      const slugs = new Map(spaces.map((s) => [s.id, s.slug]));
      const byEmail = (a: { email: string }, b: { email: string }) => a.email.localeCompare(b.email);
      return {
        version: DOCUMENT_VERSION,
        exported_at: new Date().toISOString(),
        superadmins: await this.users.superadminEmails(em),
        spaces: spaces.map((space) => ({
          slug: space.slug,
          name: space.name,
          features: space.features,
          members: memberships
            .get(space.id)!
            .map((m) => ({ email: emails.get(m.userId)!, role: m.role }))
            .sort(byEmail),
        })),
        product_roles: roles.map((r) => ({
          space: slugs.get(r.spaceId)!,
          product: r.productName,
          email: emails.get(r.userId)!,
          role: r.role,
        })),
      };
    });
  }

  async import(actor: Actor, dto: ImportPermissionsDto): Promise<PermissionsImportResponse> {
    const dryRun = dto.dry_run ?? false;
    return this.tx.run(async (em) => {
      const { document, errors: shapeErrors } = readDocument(dto.document);
      const { state, ids } = await this.currentState(em, document);
      const { errors, plan } = planImport(document, state, dto.mode, actor.email);
      const all = [...shapeErrors, ...errors];
      if (all.length) {
        throw new ValidationFailed(
          all,
          `The document has ${all.length} problem${all.length === 1 ? '' : 's'}; nothing was changed.`,
        );
      }
      if (!dryRun) {
        const user = (email: string) => ids.users.get(email)!;
        const space = (slug: string) => ids.spaces.get(slug)!;
        const product = (slug: string, name: string) => ids.products.get(`${slug}/${name}`)!;
        // Grants first, removals last: an admin handover never leaves a space without one.
        for (const change of [...plan.added, ...plan.updated]) {
          if (change.kind === 'superadmin') await this.users.setSuperadmin(em, user(change.email), true);
          if (change.kind === 'membership') {
            await this.members.setRole(
              em,
              actor,
              space(change.space!),
              user(change.email),
              change.role as SpaceRole,
            );
          }
          if (change.kind === 'product_role') {
            await this.products.setGovernanceRole(
              em,
              product(change.space!, change.product!),
              user(change.email),
              change.role as ProductRoleName,
              true,
            );
          }
        }
        for (const change of plan.removed) {
          if (change.kind === 'product_role') {
            await this.products.setGovernanceRole(
              em,
              product(change.space!, change.product!),
              user(change.email),
              change.role as ProductRoleName,
              false,
            );
          }
          if (change.kind === 'membership') {
            await this.members.removeMembership(em, actor, space(change.space!), user(change.email));
          }
        }
        for (const change of plan.removed) {
          if (change.kind === 'superadmin') await this.users.setSuperadmin(em, user(change.email), false);
        }
        await this.audit.record(em, actor, {
          action: 'permissions.imported',
          resourceType: 'permissions',
          details: {
            mode: dto.mode,
            added: plan.added.length,
            updated: plan.updated.length,
            removed: plan.removed.length,
            changes: plan,
          },
        });
      }
      return { mode: dto.mode, dry_run: dryRun, ...plan };
    });
  }

  /** Loads what the document names: its users, the current superadmins, its spaces' members, products and roles. */
  private async currentState(em: EntityManager, document: PermissionsDocument) {
    const ids = {
      users: new Map<string, string>(),
      spaces: new Map<string, string>(),
      products: new Map<string, string>(),
    };
    const state: CurrentState = {
      users: new Map(),
      superadmins: new Set(),
      spaces: new Map(),
      productRoles: new Set(),
    };
    const remember = (users: { id: string; email: string; isActive: boolean }[]) => {
      for (const u of users) {
        ids.users.set(u.email, u.id);
        state.users.set(u.email, { active: u.isActive });
      }
    };
    const superadmins = await this.users.superadminEmails(em);
    state.superadmins = new Set(superadmins);
    const named = [
      ...superadmins,
      ...document.superadmins.map((s) => s.email),
      ...document.spaces.flatMap((s) => s.members.map((m) => m.email)),
      ...document.productRoles.map((r) => r.email),
    ];
    remember(await this.users.findByEmails([...new Set(named)], em));

    const slugs = [
      ...new Set([...document.spaces.map((s) => s.slug), ...document.productRoles.map((r) => r.space)]),
    ];
    const spaces = slugs.length ? await this.spaces.summaries(em, { slugs }) : [];
    const emailOf = new Map<string, string>();
    const spaceMembers = new Map<string, { userId: string; role: SpaceRole }[]>();
    for (const space of spaces) spaceMembers.set(space.id, await this.members.membersOf(em, space.id));
    const roles = spaces.length
      ? await this.products.governanceRolesIn(
          em,
          spaces.map((s) => s.id),
        )
      : [];
    const memberIds = [
      ...new Set([...[...spaceMembers.values()].flat().map((m) => m.userId), ...roles.map((r) => r.userId)]),
    ];
    const memberUsers = await this.users.findByIds(memberIds, em);
    remember(memberUsers);
    for (const u of memberUsers) emailOf.set(u.id, u.email);

    for (const space of spaces) {
      ids.spaces.set(space.slug, space.id);
      const names = document.productRoles.filter((r) => r.space === space.slug).map((r) => r.product);
      const products = await this.products.idsByName(em, space.id, [...new Set(names)]);
      for (const [name, id] of products) ids.products.set(`${space.slug}/${name}`, id);
      state.spaces.set(space.slug, {
        members: new Map(spaceMembers.get(space.id)!.map((m) => [emailOf.get(m.userId)!, m.role])),
        products: new Set(products.keys()),
      });
    }
    const slugOf = new Map(spaces.map((s) => [s.id, s.slug]));
    for (const role of roles) {
      const slug = slugOf.get(role.spaceId)!;
      ids.products.set(`${slug}/${role.productName}`, role.productId);
      state.productRoles.add(productRoleKey(slug, role.productName, emailOf.get(role.userId)!, role.role));
    }
    return { state, ids };
  }
}
