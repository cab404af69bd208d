import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { ValidationFailed } from '../../common/errors/domain-error';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { ProductsService } from '../catalog/products.service';
import { DirectGrantChange, MembersService } from '../spaces/members.service';
import { SpacesService } from '../spaces/spaces.service';
import { UserDirectoryService } from '../users/user-directory.service';
import {
  ImportPermissionsDto,
  PermissionsDocumentResponse,
  PermissionsImportResponse,
} from './dto/permissions.dto';
import {
  Change,
  CurrentState,
  DOCUMENT_VERSION,
  GroupGrant,
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
    private readonly users: UserDirectoryService,
    private readonly spaces: SpacesService,
    private readonly members: MembersService,
    private readonly products: ProductsService,
    private readonly productDirectory: ProductDirectoryService,
    private readonly audit: AuditService,
  ) {}

  async export(_actor: Actor): Promise<PermissionsDocumentResponse> {
    return this.tx.run(async (em) => {
      const spaces = await this.spaces.summaries(em);
      const grants = await this.members.grantsIn(
        em,
        spaces.map((s) => s.id),
      );
      const roles = await this.productDirectory.governanceRolesIn(em, null);
      const userIds = new Set([
        ...grants.direct.map((g) => g.userId),
        ...grants.groups.map((g) => g.userId),
        ...roles.map((r) => r.userId),
      ]);
      const emails = new Map((await this.users.findByIds(em, [...userIds])).map((u) => [u.id, u.email]));
      const slugs = new Map(spaces.map((s) => [s.id, s.slug]));
      const byEmail = (a: { email: string }, b: { email: string }) => a.email.localeCompare(b.email);
      return {
        version: DOCUMENT_VERSION,
        exported_at: new Date().toISOString(),
        superadmins: await this.users.superadminEmails(em),
        spaces: spaces.map((space) => {
          const fromGroups = grants.groups
            .filter((g) => g.spaceId === space.id)
            .map((g) => ({ email: emails.get(g.userId)!, group: g.groupName, role: g.role }))
            .sort((a, b) => byEmail(a, b) || a.group.localeCompare(b.group));
          return {
            slug: space.slug,
            name: space.name,
            features: space.features,
            members: grants.direct
              .filter((g) => g.spaceId === space.id)
              .map((g) => ({ email: emails.get(g.userId)!, role: g.role }))
              .sort(byEmail),
            // Left out where no group grants anything, so such exports read as before.
            ...(fromGroups.length ? { group_grants: fromGroups } : {}),
          };
        }),
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
      const { state, ids } = await this.currentState(em, document, !dryRun);
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
        for (const change of plan.added) {
          if (change.kind === 'superadmin') await this.users.setSuperadmin(em, user(change.email), true);
        }
        // Each space's direct grants are set and cleared in the statement that
        // recomputes its effective roles, so an admin handover is checked on
        // the outcome (409 when a space would keep no admin, as the members API).
        const direct = new Map<string, DirectGrantChange[]>();
        const grant = (change: Change, role: SpaceRole | null) => {
          if (change.kind !== 'membership') return;
          const grants = direct.get(change.space!) ?? [];
          grants.push({ user_id: user(change.email), direct_role: role });
          direct.set(change.space!, grants);
        };
        for (const change of [...plan.added, ...plan.updated]) grant(change, change.role as SpaceRole);
        for (const change of plan.removed) grant(change, null);
        for (const [slug, grants] of direct) {
          await this.members.recomputeRoles(em, actor, space(slug), {
            userIds: grants.map((g) => g.user_id),
            direct: grants,
            details: { reason: 'permissions.imported' },
          });
        }
        const productRoles = [
          ...plan.added.map((change) => ({ change, granted: true })),
          ...plan.removed.map((change) => ({ change, granted: false })),
        ];
        for (const { change, granted } of productRoles) {
          if (change.kind !== 'product_role') continue;
          await this.products.setGovernanceRole(
            em,
            product(change.space!, change.product!),
            user(change.email),
            change.role as ProductRoleName,
            granted,
          );
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

  /**
   * Loads what the document names: its users, the current superadmins, its
   * spaces' direct and group grants, products and roles (the spaces locked
   * first when the import is to be applied).
   */
  private async currentState(em: EntityManager, document: PermissionsDocument, lock: boolean) {
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
    remember(await this.users.findByEmails(em, [...new Set(named)]));

    const slugs = [
      ...new Set([...document.spaces.map((s) => s.slug), ...document.productRoles.map((r) => r.space)]),
    ];
    const spaces = slugs.length ? await this.spaces.summaries(em, { slugs }) : [];
    const spaceIds = spaces.map((s) => s.id);
    if (lock) await this.members.lockSpaces(em, spaceIds);
    const grants = await this.members.grantsIn(em, spaceIds);
    const roles = spaces.length ? await this.productDirectory.governanceRolesIn(em, spaceIds) : [];
    const memberIds = [
      ...new Set([
        ...grants.direct.map((g) => g.userId),
        ...grants.groups.map((g) => g.userId),
        ...roles.map((r) => r.userId),
      ]),
    ];
    const memberUsers = await this.users.findByIds(em, memberIds);
    remember(memberUsers);
    const emailOf = new Map(memberUsers.map((u) => [u.id, u.email]));

    for (const space of spaces) {
      ids.spaces.set(space.slug, space.id);
      const names = document.productRoles.filter((r) => r.space === space.slug).map((r) => r.product);
      const products = await this.productDirectory.idsByName(em, space.id, [...new Set(names)]);
      for (const [name, id] of products) ids.products.set(`${space.slug}/${name}`, id);
      const groupGrants = new Map<string, GroupGrant[]>();
      for (const g of grants.groups.filter((g) => g.spaceId === space.id)) {
        const email = emailOf.get(g.userId)!;
        groupGrants.set(email, [...(groupGrants.get(email) ?? []), { group: g.groupName, role: g.role }]);
      }
      state.spaces.set(space.slug, {
        members: new Map(
          grants.direct.filter((g) => g.spaceId === space.id).map((g) => [emailOf.get(g.userId)!, g.role]),
        ),
        groupGrants,
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
