"""Who may do what a profile or permission set must allow: "Manage Users" and "Set Audit Fields upon Record
Creation", as a real org grants them.

Among a real org's standard profiles only System Administrator has Manage Users (and with it "Manage
Profiles and Permission Sets" and "Assign Permission Sets"); the profiles a CRMArena org gives its
agents do not. Without them a user may not create, delete, activate or deactivate users, change
anyone's profile or username, edit Profile records, set and reset passwords, create, edit or delete
permission sets, or assign and unassign them; it may still edit the personal fields of its own User
record (Salesforce Help, "User Permissions" and "Edit Your Personal Information"; Object Reference,
"PermissionSetAssignment", Special Access Rules: only users with View Setup and Configuration, Assign
Permission Sets or Manage Users reach it). So nobody grants themselves what an administrator has not.
The server's own administrator (the user whose credentials it prints) always has them.

"Set Audit Fields upon Record Creation" (``PermissionsCreateAuditFields``) lets a user give CreatedDate,
CreatedById, LastModifiedDate and LastModifiedById their values on insert, never on update (Salesforce
Help, "Enable Creation of Audit Fields"). Nobody has it until a permission set that grants it is
assigned to them, administrators included, as in a fresh org. No HTTP here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Table, exists, select
from sqlalchemy.engine import Connection

from .errors import InsufficientAccessOrReadonly
from .schema import Schema, SObject
from .storage import Storage

MANAGE_USERS_PROFILES = frozenset({"system administrator"})
# Writes that need the administrator's permissions: users and profiles (Manage Users), permission sets
# (Manage Profiles and Permission Sets) and their assignments (Assign Permission Sets).
GUARDED_OBJECTS = frozenset({"user", "profile", "permissionset", "permissionsetassignment"})
# What a user without Manage Users may not change even on its own User record.
PRIVILEGED_USER_FIELDS = frozenset({"profileid", "isactive", "username"})
INSUFFICIENT_ACCESS = "insufficient access rights on object id"
# The fields "Set Audit Fields upon Record Creation" makes createable (SystemModstamp never is).
AUDIT_FIELDS = frozenset({"createddate", "createdbyid", "lastmodifieddate", "lastmodifiedbyid"})


class Permissions:
    def __init__(self, storage: Storage, schema: Schema) -> None:
        self.storage = storage
        self.schema = schema
        self._granted: set[str] = set()

    def grant_manage_users(self, user_id: str) -> None:
        """The server's administrator manages users whatever its profile says."""
        self._granted.add(user_id)

    def manages_users(self, connection: Connection, user_id: str) -> bool:
        if user_id in self._granted:
            return True
        if self.schema.get("Profile") is None:
            return False
        users = self.storage.table(self.schema["User"])
        profiles = self.storage.table(self.schema["Profile"])
        name = connection.execute(
            select(profiles.c.Name)
            .select_from(users.join(profiles, profiles.c.Id == users.c.ProfileId))
            .where(users.c.Id == user_id, users.c.IsActive == 1, users.c.IsDeleted == 0)
        ).scalar()
        return (name or "").casefold() in MANAGE_USERS_PROFILES

    def sets_audit_fields(self, connection: Connection, user_id: str) -> bool:
        """Whether an active assignment gives the user a permission set with PermissionsCreateAuditFields."""
        if self.schema.get("PermissionSetAssignment") is None:
            return False
        return self._assigned(connection, user_id, lambda sets: sets.c.PermissionsCreateAuditFields == 1)

    def views_all_data(self, connection: Connection, user_id: str) -> bool:
        """Whether an active assignment gives the user View All Data (the System Administrator profile's
        own permission set does), or the user is the server's administrator. In a real org it, or
        "Manage Data Integrations", lets a user see and manage every user's Bulk API jobs; without
        them a user monitors only its own (Salesforce Help, "Monitor Bulk Data Load Jobs")."""
        if user_id in self._granted:
            return True
        if self.schema.get("PermissionSetAssignment") is None:
            return self.manages_users(connection, user_id)
        return self._assigned(
            connection,
            user_id,
            lambda sets: (sets.c.PermissionsViewAllData == 1) | (sets.c.PermissionsModifyAllData == 1),
        )

    def _assigned(self, connection: Connection, user_id: str, permission: Callable[[Table], Any]) -> bool:
        """Whether an active assignment gives the user a live permission set meeting ``permission``."""
        sets = self.storage.table(self.schema["PermissionSet"])
        assignments = self.storage.table(self.schema["PermissionSetAssignment"])
        granted = (
            select(assignments.c.Id)
            .select_from(assignments.join(sets, sets.c.Id == assignments.c.PermissionSetId))
            .where(
                assignments.c.AssigneeId == user_id,
                assignments.c.IsActive == 1,
                assignments.c.IsDeleted == 0,
                sets.c.IsDeleted == 0,
                permission(sets),
            )
        )
        return bool(connection.execute(select(exists(granted))).scalar())

    def check_write(
        self,
        connection: Connection,
        sobject: SObject,
        user_id: str,
        record_id: str | None = None,
        fields: tuple[str, ...] = (),
    ) -> None:
        """Refuse a write to a User, Profile, PermissionSet or PermissionSetAssignment record that needs an
        administrator's permission the writer lacks.

        ``record_id`` and ``fields`` describe an update (None for a create, delete or undelete).
        """
        if sobject.name.lower() not in GUARDED_OBJECTS or self.manages_users(connection, user_id):
            return
        own_record = sobject.name == "User" and record_id == user_id
        if own_record and not any(name.lower() in PRIVILEGED_USER_FIELDS for name in fields):
            return
        raise InsufficientAccessOrReadonly(INSUFFICIENT_ACCESS)
