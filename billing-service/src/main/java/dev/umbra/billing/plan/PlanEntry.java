package dev.umbra.billing.plan;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A plan of the catalogue; the price is in minor units of its currency. */
@Entity
@Table(name = "plan")
public class PlanEntry extends PanacheEntityBase {

    @Id
    public String code;

    @Column(nullable = false)
    public String name;

    @Column(name = "monthly_price", nullable = false)
    public long monthlyPrice;

    @Column(nullable = false)
    public String currency;

    @Column(nullable = false)
    public int rank;
}
