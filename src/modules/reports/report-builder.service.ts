import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { PolicyEvaluationsService } from '../policies/policy-evaluations.service';
import { QualityReadService } from '../quality/quality-read.service';
import { RisksService } from '../risks/risks.service';
import { Cell, csvLine } from '../../common/text/csv';
import { BODY_ROWS, ReportContent } from './report-render';
import { ReportFrequency, reportPeriodStart, ReportType } from './report-schedule';

export interface BuiltReport {
  content: ReportContent;
  /** The CSV attachment: every row, header first. */
  csv: string;
}

const INVENTORY_PAGE = 2_000;

/** Builds each report type from the space's live data. */
@Injectable()
export class ReportBuilder {
  constructor(
    private readonly products: ProductDirectoryService,
    private readonly policies: PolicyEvaluationsService,
    private readonly quality: QualityReadService,
    private readonly risks: RisksService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async build(
    spaceId: string,
    type: ReportType,
    frequency: ReportFrequency,
    now: Date,
  ): Promise<BuiltReport> {
    switch (type) {
      case 'compliance_summary':
        return this.complianceSummary(spaceId);
      case 'quality_overview':
        return this.qualityOverview(spaceId);
      case 'incident_digest':
        return this.incidentDigest(spaceId, reportPeriodStart(frequency, now));
      case 'risk_register':
        return this.riskRegister(spaceId);
      case 'policy_violations':
        return this.policyViolations(spaceId);
      case 'catalog_inventory':
        return this.catalogInventory(spaceId);
    }
  }

  private async complianceSummary(spaceId: string): Promise<BuiltReport> {
    const summary = await this.policies.summaryOf(spaceId);
    const columns = ['Policy', 'Severity', 'Compliant', 'Violations'];
    const rows: Cell[][] = summary.by_policy.map((p) => [p.name, p.severity, p.compliant, p.violations]);
    return table(
      {
        title: 'Compliance summary',
        summary: [
          ['Compliance rate', `${summary.compliance_rate}%`],
          ['Products', summary.total_products],
          ['Compliant products', summary.compliant_products],
          ['Non-compliant products', summary.non_compliant_products],
          ['Enabled policies', summary.enabled_policies],
        ],
        columns,
        data: summary as unknown as Record<string, unknown>,
      },
      rows,
    );
  }

  private async qualityOverview(spaceId: string): Promise<BuiltReport> {
    const overview = await this.quality.overview(spaceId);
    const rows: Cell[][] = overview.failing_checks.map((c) => [
      c.name,
      c.product_name,
      c.severity,
      c.status,
      c.last_run_at,
    ]);
    const alerts = overview.open_alerts_by_severity;
    return table(
      {
        title: 'Quality overview',
        summary: [
          ['Checks', overview.checks.total],
          ['Passing', overview.checks.passing],
          ['Failing', overview.checks.failing],
          ['Erroring', overview.checks.erroring],
          ['Never run', overview.checks.never_run],
          ['Open alerts', Object.values(alerts).reduce((n, v) => n + v, 0)],
        ],
        columns: ['Check', 'Product', 'Severity', 'Last status', 'Last run'],
        data: overview as unknown as Record<string, unknown>,
      },
      rows,
    );
  }

  private async incidentDigest(spaceId: string, since: Date): Promise<BuiltReport> {
    const incidents = await this.quality.incidentDigest(spaceId, since);
    const rows: Cell[][] = incidents.map((i) => [
      i.title,
      i.status,
      i.severity,
      i.alert_count,
      i.root_product_name,
      i.created_at,
      i.resolved_at,
    ]);
    return table(
      {
        title: 'Incident digest',
        summary: [
          ['Since', since.toISOString()],
          ['Incidents', incidents.length],
          ['Still open', incidents.filter((i) => i.status !== 'resolved').length],
        ],
        columns: ['Incident', 'Status', 'Severity', 'Alerts', 'Root product', 'Opened', 'Resolved'],
        data: { since: since.toISOString(), incidents },
      },
      rows,
    );
  }

  private async riskRegister(spaceId: string): Promise<BuiltReport> {
    const risks = await this.risks.allInSpace(spaceId);
    const byTier = { critical: 0, high: 0, medium: 0, low: 0 } as Record<string, number>;
    for (const risk of risks) byTier[risk.tier]++;
    const rows: Cell[][] = risks.map((r) => [
      r.title,
      r.category,
      r.likelihood,
      r.impact,
      r.score,
      r.tier,
      r.status,
      r.review_date,
    ]);
    return table(
      {
        title: 'Risk register',
        summary: [
          ['Risks', risks.length],
          ['Critical', byTier.critical],
          ['High', byTier.high],
          ['Medium', byTier.medium],
          ['Low', byTier.low],
        ],
        columns: ['Risk', 'Category', 'Likelihood', 'Impact', 'Score', 'Tier', 'Status', 'Review date'],
        data: { by_tier: byTier, risks },
      },
      rows,
    );
  }

  private async policyViolations(spaceId: string): Promise<BuiltReport> {
    const violations = await this.policies.violationsInSpace(spaceId);
    const rows: Cell[][] = violations.map((v) => [
      v.policy_name,
      v.severity,
      v.product_name,
      v.message,
      v.evaluated_at,
    ]);
    return table(
      {
        title: 'Policy violations',
        summary: [
          ['Violations', violations.length],
          ['Products affected', new Set(violations.map((v) => v.product_id)).size],
        ],
        columns: ['Policy', 'Severity', 'Product', 'Message', 'Evaluated'],
        data: { violations },
      },
      rows,
    );
  }

  /** Pages through the products (2,000 at a time) so memory holds the CSV text, never every product. */
  private async catalogInventory(spaceId: string): Promise<BuiltReport> {
    const columns = [
      'Product',
      'Type',
      'Domain',
      'Criticality',
      'Sensitivity',
      'Maintenance',
      'Owners',
      'Tags',
      'Created',
    ];
    const chunks = [csvLine(columns)];
    const shown: Cell[][] = [];
    const byType: Record<string, number> = {};
    let total = 0;
    let unowned = 0;
    let cursor: string | null = null;
    do {
      // No transaction: read on the DataSource's manager.
      const page = await this.products.page(this.dataSource.manager, spaceId, cursor, INVENTORY_PAGE);
      cursor = page.cursor;
      let lines = '';
      for (const p of page.items) {
        const row: Cell[] = [
          p.name,
          p.product_type,
          p.domain,
          p.criticality,
          p.sensitivity,
          p.maintenance_status,
          p.owners.map((o) => o.email).join('; '),
          p.tags.join('; '),
          p.created_at.toISOString(),
        ];
        lines += csvLine(row);
        if (shown.length < BODY_ROWS) shown.push(row);
        byType[p.product_type] = (byType[p.product_type] ?? 0) + 1;
        if (!p.owners.length) unowned++;
        total++;
      }
      chunks.push(lines);
    } while (cursor);
    return {
      content: {
        title: 'Catalog inventory',
        summary: [
          ['Products', total],
          ['Without an owner', unowned],
          ...Object.entries(byType).map(([type, n]): [string, Cell] => [`Type ${type}`, n]),
        ],
        columns,
        rows: shown,
        totalRows: total,
        data: {
          total_products: total,
          without_owner: unowned,
          by_type: byType,
          products: shown.map((row) => Object.fromEntries(columns.map((c, i) => [c.toLowerCase(), row[i]]))),
        },
      },
      csv: chunks.join(''),
    };
  }
}

function table(content: Omit<ReportContent, 'rows' | 'totalRows'>, rows: Cell[][]): BuiltReport {
  return {
    content: { ...content, rows: rows.slice(0, BODY_ROWS), totalRows: rows.length },
    csv: csvLine(content.columns) + rows.map(csvLine).join(''),
  };
}
